"""Run tags that give a chat-model call its meaning to the event stream and to usage."""

#: Tag on chat-model calls whose tokens are the user-facing answer (streamed as `token`).
ANSWER_TAG = "dure:answer"
#: Tag on chat-model calls made by a tool (counted apart in usage, outside the budget).
TOOL_LLM_TAG = "dure:tool-llm"
