// acpconform-kit: acpconform's probe adapters (docs/probe.md) around your own
// ask_choice, on @agentclientprotocol/sdk 2.4.0. README.md shows the whole
// adapter; agent.mjs is the agent kit (§1), client.mjs the client kit's test
// mode (§2), json.mjs exact JSON numbers, content.mjs the judge of a form's
// content that your createElicitation may call (ELI-3).

export { runAgent, serveAgent, Value, equal, FallbackError, ERROR_KINDS } from "./agent.mjs";
export { answerAsInstructed, instructionOf, isTypedChoice, USER_META_KEY } from "./client.mjs";
export { contentProblems } from "./content.mjs";
