// input.js: the input shorthand (docs/rules/input-shorthand.md): a case name, a case
// name with its fields, or the input object itself.

import { badArgument } from "./errors.js";
import { isContainer } from "./patch.js";

const isObject = (value) => isContainer(value) && !Array.isArray(value);

/** An input as the protocol wants it: "increase", {"answerChanged": {"text": "hi"}}.
 *  A name with no fields (or an empty object of them) is the bare name. */
export function normalizeInput(input, fields) {
    if (typeof input === "string") {
        if (fields === undefined || (isObject(fields) && Object.keys(fields).length === 0)) return input;
        if (isObject(fields)) return { [input]: fields };
    } else if (isObject(input) && fields === undefined) {
        return input;
    }
    throw badArgument("send() takes an input name, an input object, or a name and an object of its fields");
}
