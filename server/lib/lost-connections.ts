// postgres.js reads the database's array types on each new connection through a promise it never
// awaits, so a connection lost during that read (a primary or replica stopped at that moment, a
// failover) rejects with no one to catch it, and Node ends a process on an unhandled rejection: a
// replica going down could take the server with it. A database connection error that no caller
// owns is therefore logged and survived; each statement on that connection still fails to its own
// caller. Any other unhandled rejection still ends the process, as Node's default does.
import { isDatabaseUnreachable } from "./db-errors.ts";

let installed = false;

/** Installs the process-wide rule once, for the server and worker processes. */
export function surviveLostConnections(warn: (err: unknown) => void): void {
  if (installed) return;
  installed = true;
  process.on("unhandledRejection", (reason) => {
    if (!isDatabaseUnreachable(reason)) throw reason;
    warn(reason);
  });
}
