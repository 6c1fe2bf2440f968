// Swagger UI over the server's own OpenAPI document; its scripts come from this server
// (/docs-assets), so the page works without internet and under the page's CSP.
window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset],
  layout: "BaseLayout",
});
