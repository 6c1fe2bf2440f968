"""Understanding the user's Korean: every decision about the user's words, in one place.

Each decision runs its tiers cheapest first and says which one settled it (`decided_by`):
near-certain rules, then a classifier over example banks (multilingual-e5 vectors and Kiwi
morphemes), then one bounded LLM call that fails closed.

- `scope` — is a message for the contract agent (contract / smalltalk / out_of_scope)?
- `followup` — does answering it need the previous turn?
- `intent` — plan-then-execute's intent, needs_tool and a standalone rewrite.
- `route` — the assistant's route: search the user's documents (rag) or not (agent).

Rules only, shared by every agent: `slots` (places, food, dates and times, people, money in
an utterance), `numbers` (Korean number words), `time` (Seoul's zone, weekday names). Nothing
here imports `dure.agents`; this package imports no submodule, so importing one stays light.
"""
