// storage.js: where the session id is kept so that a reload rejoins the session
// (sessionStorage, per tab), tolerant of storage that is full or denied.

/** The key the session id is stored under, unless connect() is given another. */
export const STORAGE_KEY = "fusionkit.session";

export function defaultStorage() {
    try {
        return globalThis.sessionStorage ?? null;
    } catch {
        return null; // storage denied (a sandboxed frame, a privacy setting)
    }
}

export function readStorage(storage, key) {
    try {
        return storage?.getItem(key) ?? null;
    } catch {
        return null;
    }
}

export function writeStorage(storage, key, value) {
    try {
        storage?.setItem(key, value);
    } catch {
        // Full or denied: the session still works, it just will not survive a reload.
    }
}
