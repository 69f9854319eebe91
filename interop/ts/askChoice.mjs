// The feature the agent adapter wires to the kit: the ask_choice of
// acpconform-kit's example (kit/ts/example/askChoice.mjs), as installed
// from the kit, so that agent.mjs here is the example's adapter unchanged.
export * from "acpconform-kit/example/askChoice.mjs";
