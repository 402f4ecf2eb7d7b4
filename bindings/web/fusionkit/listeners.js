// listeners.js: calling a page's callbacks so that one that throws stops nothing.

/** Reports an error a callback threw, as the page reports its own uncaught errors. */
export function report(error) {
    if (typeof globalThis.reportError === "function") globalThis.reportError(error);
    else console.error(error);
}

/** Calls every listener; one that throws does not stop the others or the module. */
export function emit(listeners, ...args) {
    for (const listener of [...listeners]) {
        try {
            listener(...args);
        } catch (error) {
            report(error);
        }
    }
}

/** Adds `fn` to `listeners`, calls it once now with `now()`'s arguments (unless `now`
 *  returns null), and returns the function that removes it. */
export function listen(listeners, fn, now) {
    listeners.add(fn);
    const args = now();
    if (args !== null) {
        try {
            fn(...args);
        } catch (error) {
            report(error);
        }
    }
    return () => listeners.delete(fn);
}
