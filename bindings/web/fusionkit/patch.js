// patch.js: JSON Pointer (RFC 6901), JSON Patch (RFC 6902) and JSON equality, on plain
// values; nothing here knows about the bridge.

import { PatchError } from "./errors.js";

/** The reference tokens of a JSON Pointer: "" is the whole document, "/a~1b/0" is ["a/b", "0"]. */
export function parsePointer(pointer) {
    if (typeof pointer !== "string") throw new PatchError(`a pointer is a string, not ${typeof pointer}`);
    if (pointer === "") return [];
    if (pointer[0] !== "/") throw new PatchError(`the pointer "${pointer}" does not start with "/"`);
    if (/~(?![01])/.test(pointer)) throw new PatchError(`the pointer "${pointer}" has a "~" not followed by 0 or 1`);
    return pointer.slice(1).split("/").map((token) => token.replace(/~1/g, "/").replace(/~0/g, "~"));
}

export const hasOwn = (object, key) => Object.prototype.hasOwnProperty.call(object, key);
export const isContainer = (value) => value !== null && typeof value === "object";

/** A key as an own data property, even "__proto__". */
function setKey(object, key, value) {
    if (key === "__proto__") {
        Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
    } else {
        object[key] = value;
    }
}

export function shallowCopy(value) {
    if (Array.isArray(value)) return value.slice();
    const copy = {};
    for (const key of Object.keys(value)) setKey(copy, key, value[key]);
    return copy;
}

function deepCopy(value) {
    if (!isContainer(value)) return value;
    if (Array.isArray(value)) return value.map(deepCopy);
    const copy = {};
    for (const key of Object.keys(value)) setKey(copy, key, deepCopy(value[key]));
    return copy;
}

/** Equality as JSON sees it: same type, same members, object keys in any order. */
export function jsonEqual(a, b) {
    if (a === b) return true;
    if (!isContainer(a) || !isContainer(b)) return false;
    if (Array.isArray(a) !== Array.isArray(b)) return false;
    if (Array.isArray(a)) {
        if (a.length !== b.length) return false;
        for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
        return true;
    }
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    for (const key of keys) if (!hasOwn(b, key) || !jsonEqual(a[key], b[key])) return false;
    return true;
}

/** An array index token: "0" or digits without a leading zero. */
function arrayIndex(token, array, pointer, allowEnd) {
    if (allowEnd && token === "-") return array.length;
    if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new PatchError(`"${token}" in "${pointer}" is not an array index`);
    const index = Number(token);
    const limit = allowEnd ? array.length : array.length - 1;
    if (index > limit) throw new PatchError(`index ${index} in "${pointer}" is out of range (length ${array.length})`);
    return index;
}

/**
 * Applies a JSON Patch (RFC 6902: add, remove, replace, move, copy, test) and returns
 * the new document. The document given is never changed: containers on the paths the
 * patch touches are copied, everything else is shared. A patch that fails (a missing
 * path, a failed `test`) throws a PatchError and leaves nothing half done.
 */
export function applyPatch(document, patch) {
    if (!Array.isArray(patch)) throw new PatchError("a patch is an array of operations");
    // Containers made by this call: only these may be changed in place.
    const owned = new WeakSet();
    let root = document;

    const own = (value) => {
        const copy = shallowCopy(value);
        owned.add(copy);
        return copy;
    };

    const get = (pointer) => {
        let node = root;
        for (const token of parsePointer(pointer)) {
            if (Array.isArray(node)) {
                node = node[arrayIndex(token, node, pointer, false)];
            } else if (isContainer(node) && hasOwn(node, token)) {
                node = node[token];
            } else {
                throw new PatchError(`"${pointer}" does not exist`);
            }
        }
        return node;
    };

    // The container holding the pointer's last token, made ours along the way.
    const parentOf = (tokens, pointer) => {
        if (!isContainer(root)) throw new PatchError(`"${pointer}" does not exist: the document is not a container`);
        if (!owned.has(root)) root = own(root);
        let node = root;
        for (let i = 0; i < tokens.length - 1; i++) {
            const token = tokens[i];
            let key;
            if (Array.isArray(node)) key = arrayIndex(token, node, pointer, false);
            else if (hasOwn(node, token)) key = token;
            else throw new PatchError(`"${pointer}" does not exist`);
            let child = node[key];
            if (!isContainer(child)) throw new PatchError(`"${pointer}" does not exist: "${token}" is not a container`);
            if (!owned.has(child)) {
                child = own(child);
                if (Array.isArray(node)) node[key] = child;
                else setKey(node, key, child);
            }
            node = child;
        }
        return node;
    };

    // Where a value goes: null for the whole document (which then becomes `value`),
    // else the container (made ours) and the last token.
    const place = (pointer, value) => {
        const tokens = parsePointer(pointer);
        if (tokens.length === 0) {
            root = value;
            return null;
        }
        return { parent: parentOf(tokens, pointer), last: tokens[tokens.length - 1] };
    };

    const add = (pointer, value) => {
        const target = place(pointer, value);
        if (target === null) return;
        const { parent, last } = target;
        if (Array.isArray(parent)) parent.splice(arrayIndex(last, parent, pointer, true), 0, value);
        else setKey(parent, last, value);
    };

    const remove = (pointer) => {
        const tokens = parsePointer(pointer);
        if (tokens.length === 0) throw new PatchError("cannot remove the whole document");
        const parent = parentOf(tokens, pointer);
        const last = tokens[tokens.length - 1];
        if (Array.isArray(parent)) {
            return parent.splice(arrayIndex(last, parent, pointer, false), 1)[0];
        }
        if (!hasOwn(parent, last)) throw new PatchError(`"${pointer}" does not exist`);
        const value = parent[last];
        delete parent[last];
        return value;
    };

    const replace = (pointer, value) => {
        const target = place(pointer, value);
        if (target === null) return;
        const { parent, last } = target;
        if (Array.isArray(parent)) {
            parent[arrayIndex(last, parent, pointer, false)] = value;
        } else {
            if (!hasOwn(parent, last)) throw new PatchError(`"${pointer}" does not exist`);
            setKey(parent, last, value);
        }
    };

    for (const operation of patch) {
        if (!isContainer(operation)) throw new PatchError("an operation is an object");
        const { op, path } = operation;
        if (typeof path !== "string") throw new PatchError(`operation "${op}" has no "path"`);
        const needsValue = op === "add" || op === "replace" || op === "test";
        if (needsValue && !hasOwn(operation, "value")) throw new PatchError(`operation "${op}" at "${path}" has no "value"`);
        const needsFrom = op === "move" || op === "copy";
        if (needsFrom && typeof operation.from !== "string") throw new PatchError(`operation "${op}" at "${path}" has no "from"`);
        switch (op) {
            case "add":
                add(path, operation.value);
                break;
            case "remove":
                remove(path);
                break;
            case "replace":
                replace(path, operation.value);
                break;
            case "move": {
                const from = operation.from;
                if (path === from) {
                    get(from);
                    break;
                }
                if (path.startsWith(from + "/")) throw new PatchError(`cannot move "${from}" into its own child "${path}"`);
                add(path, remove(from));
                break;
            }
            case "copy":
                // A copy is a new value: two places never share a container this call may change.
                add(path, deepCopy(get(operation.from)));
                break;
            case "test":
                if (!jsonEqual(get(path), operation.value)) throw new PatchError(`test failed at "${path}"`);
                break;
            default:
                throw new PatchError(`unknown operation "${op}"`);
        }
    }
    return root;
}

