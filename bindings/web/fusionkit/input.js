// input.js: the input shorthand (docs/rules/input-shorthand.md): a case name, a case
// name with its fields, or the input object itself.

import { badArgument } from "./errors.js";
import { isContainer } from "./patch.js";

/** An input as the protocol wants it: "increase", {"answerChanged": {"text": "hi"}}. */
export function normalizeInput(input, fields) {
    if (typeof input === "string") return fields === undefined ? input : { [input]: fields };
    if (isContainer(input) && !Array.isArray(input) && fields === undefined) return input;
    throw badArgument("send() takes an input name, an input object, or a name and its fields");
}
