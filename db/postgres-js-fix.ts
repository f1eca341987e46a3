// postgres.js 3.4.x sends a short message on the next turn of the event loop (setImmediate). A
// transaction's connection is pinned to it: when its backend goes away between two statements
// (pg_terminate_backend, a failover, a cut network), the next statement or the ROLLBACK is still
// written to that connection, whose socket is gone by the time the write runs. It throws outside any
// caller and ends the process (porsager/postgres#1154, #1208, unfixed in 3.4.10). Closing also
// leaves the cancelled write's timer set, so the connection, reopened, never sends again.
//
// Until a release fixes it, the driver's connection module is loaded with both mended: a write
// with no socket fails the statements it carried (CONNECTION_CLOSED, answered 503) and clears
// itself, and closing clears the pending write. A version whose source no longer matches is
// loaded as it is, and db/postgres-js-fix.test.ts says so.
import { registerHooks } from "node:module";

const CONNECTION_MODULE = /\/postgres\/src\/connection\.js$/;

const FIXES: { find: string; replace: string }[] = [
  {
    find: "  function nextWrite(fn) {\n    const x = socket.write(chunk, fn)\n",
    replace:
      "  function nextWrite(fn) {\n" +
      "    if (!socket) {\n" +
      "      nextWriteTimer !== null && clearImmediate(nextWriteTimer)\n" +
      "      chunk = nextWriteTimer = null\n" +
      "      const err = Errors.connection('CONNECTION_CLOSED', options)\n" +
      "      query && (queryError(query, err), query = null)\n" +
      "      while (sent.length) queryError(sent.shift(), err)\n" +
      "      return false\n" +
      "    }\n" +
      "    const x = socket.write(chunk, fn)\n",
  },
  {
    find: "    clearImmediate(nextWriteTimer)\n    if (socket) {\n",
    replace:
      "    clearImmediate(nextWriteTimer)\n    chunk = nextWriteTimer = null\n    if (socket) {\n",
  },
  {
    find: "    incomings = null\n    clearImmediate(nextWriteTimer)\n",
    replace:
      "    incomings = null\n    clearImmediate(nextWriteTimer)\n    chunk = nextWriteTimer = null\n",
  },
];

let installed = false;

/** Mends postgres.js's connection module for every later import of it in this thread. */
export function mendPostgresJs(): void {
  // registerHooks arrived in Node 22.15 (bin/till.js runs nothing older); without it the driver
  // loads as published.
  if (installed || typeof registerHooks !== "function") return;
  installed = true;
  registerHooks({
    load(url, context, nextLoad) {
      const loaded = nextLoad(url, context);
      if (!CONNECTION_MODULE.test(url) || loaded.source == null) return loaded;
      const source = mendedSource(String(loaded.source));
      return source === null ? loaded : { ...loaded, source };
    },
  });
}

/** The module's source with every fix applied; null when any of them no longer matches. */
export function mendedSource(source: string): string | null {
  let out = source;
  for (const { find, replace } of FIXES) {
    if (out.split(find).length !== 2) return null;
    out = out.replace(find, replace);
  }
  return out;
}
