// The client kit: test mode (docs/probe.md §2) for an ACP client on
// @agentclientprotocol/sdk. acpconform's every elicitation/create carries a
// scripted-user instruction in params._meta["acpconform/user"]; this module
// turns the request into the answer that instruction asks for, so that a
// client's test mode is one handler:
//
//   app.onRequest(acp.methods.client.elicitation.create, async ({ params, signal }) =>
//     (await answerAsInstructed(params, { signal, elicitation })) ?? askTheUser(params));

import * as acp from "@agentclientprotocol/sdk";

/** The _meta key of the scripted-user instruction. */
export const USER_META_KEY = "acpconform/user";

/** instructionOf is the request's scripted-user instruction, or undefined when it has none. */
export function instructionOf(params) {
  return params?._meta?.[USER_META_KEY] ?? undefined;
}

const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * answerAsInstructed answers an elicitation/create as its scripted-user
 * instruction says (§2.1, §2.5), or resolves to undefined when the request
 * carries none: then it is a person's to answer.
 *
 * - accept of a typed choice: {"choice": the picked option's const, or the schema's default for "default"};
 * - accept of any other form: the instruction's content, as given;
 * - accept of a URL elicitation: no content (a client in test mode opens nothing);
 * - decline, cancel: no content;
 * - wait: nothing until `signal` aborts (the SDK aborts a handler's signal on
 *   the agent's $/cancel_request), then cancel.
 *
 * It throws the SDK's -32602 (RequestError.invalidParams) for an instruction
 * it cannot follow (§2.2), and, when `elicitation` is given, for a request of
 * a mode it does not advertise (ELI-6), instruction or not.
 *
 * @param params the elicitation/create params, as the SDK hands them to the handler
 * @param options.signal {AbortSignal} the handler's signal
 * @param options.elicitation the client's advertised elicitation capability,
 *   such as {form: {}, url: {}}: a mode is advertised by a JSON object
 */
export async function answerAsInstructed(params, { signal, elicitation } = {}) {
  if (elicitation !== undefined && !isObject(elicitation?.[params.mode])) {
    throw acp.RequestError.invalidParams({ error: `${params.mode} elicitation was not advertised` });
  }
  const user = instructionOf(params);
  if (user === undefined) return undefined;
  if (!isObject(user)) throw cannot(`the instruction is not a JSON object`);
  switch (user.action) {
    case "decline":
      return { action: "decline" };
    case "cancel":
      return { action: "cancel" };
    case "wait":
      if (!signal) throw cannot("a wait needs the handler's signal to end on");
      await aborted(signal);
      return { action: "cancel" }; // written nowhere if it was the connection that closed
    case "accept":
      return accept(params, user);
  }
  throw cannot(`unknown action ${JSON.stringify(user.action)}`);
}

function cannot(why) {
  return acp.RequestError.invalidParams({ error: `cannot follow ${USER_META_KEY}: ${why}` });
}

function aborted(signal) {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", resolve, { once: true });
  });
}

/** isTypedChoice: the form's only property is "choice", with a oneOf (ask_choice's form). */
export function isTypedChoice(params) {
  const properties = params?.requestedSchema?.properties;
  if (params?.mode === "url" || !isObject(properties)) return false;
  const names = Object.keys(properties);
  return names.length === 1 && names[0] === "choice" && Array.isArray(properties.choice?.oneOf);
}

// accept answers an accept: no content for a URL, the picked option's const
// for a typed choice, and a copy of the instruction's content for any other
// form.
function accept(params, user) {
  if (params.mode === "url") {
    if (user.pick !== undefined || user.content !== undefined) throw cannot("a URL elicitation's accept has no pick and no content");
    return { action: "accept" };
  }
  if (!isTypedChoice(params)) {
    if (user.pick !== undefined) throw cannot("a form that is no typed choice is accepted with content, not a pick");
    if (!isObject(user.content)) throw cannot("the accept of a form that is no typed choice needs content, a JSON object");
    return { action: "accept", content: { ...user.content } };
  }
  if (user.content !== undefined) throw cannot("a typed choice is accepted with a pick, not content");
  const choice = params.requestedSchema.properties.choice;
  let token;
  if (user.pick === "default") token = choice.default;
  else if (Number.isInteger(user.pick) && user.pick >= 0) token = choice.oneOf[user.pick]?.const;
  else throw cannot(`pick ${JSON.stringify(user.pick)} is neither an index nor "default"`);
  if (typeof token !== "string") throw cannot(`the form has no choice for pick ${JSON.stringify(user.pick)}`);
  return { action: "accept", content: { choice: token } };
}
