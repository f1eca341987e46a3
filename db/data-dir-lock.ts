// An embedded database belongs to one process: PGlite keeps its pages in memory and writes the data
// dir's files as if alone, so a second `till dev` (or `till migrate`, `till worker`) on the same dir
// would overwrite the first one's writes. A lock file naming the owner keeps the second out.
//
// A pid alone does not name a process for long: once the owner dies the system may give its pid to
// any other process, and the lock would look held for as long as that one runs. So the lock also
// records the owner's start time and the system's boot id where /proc has them (Linux); a live pid
// started at another time, or a lock from before a reboot, is a dead owner's. Elsewhere the pid is
// all there is to go by.
import { randomBytes } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

export class DataDirInUseError extends Error {
  override name = "DataDirInUseError";
}

/** What the lock file holds. `start` and `boot` are null where /proc is absent. */
interface Owner {
  pid: number;
  /** The process's start time, in clock ticks after boot (/proc/<pid>/stat, field 22). */
  start: string | null;
  /** /proc/sys/kernel/random/boot_id: a start time counts from this boot only. */
  boot: string | null;
}

export interface LockOptions {
  /** Where the process table is read (tests point it elsewhere to run as without /proc). */
  procDir?: string;
}

/** Takes the data dir for this process; the answer gives it back. */
export function lockDataDir(dataDir: string, options: LockOptions = {}): () => void {
  const proc = options.procDir ?? "/proc";
  const file = path.join(dataDir, "till.lock");
  const me: Owner & { token: string } = {
    pid: process.pid,
    start: startTimeOf(proc, process.pid),
    boot: bootIdOf(proc),
    // Makes each lock's text unique, so a stale lock is told apart from one just taken in its place.
    token: randomBytes(8).toString("hex"),
  };
  const text = JSON.stringify(me);
  for (;;) {
    try {
      writeFileSync(file, text, { flag: "wx" });
      return () => {
        // Only our own lock: one taken over from us (we were judged dead) is the new owner's.
        if (readText(file) === text) rmSync(file, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const found = readText(file);
    if (found === null) continue; // given back just now
    const owner = parseOwner(found);
    if (owner && owner.pid !== process.pid && isHeld(proc, owner))
      throw new DataDirInUseError(
        `The embedded database at ${dataDir} is in use by another till process (pid ${owner.pid}). Stop it, or set TILL_DATA_DIR to another directory.`,
      );
    // Left by a process that died (or by this pid in an earlier life, in a container). Removed only
    // if unchanged: another process may have taken it over since it was read.
    if (readText(file) === found) rmSync(file, { force: true });
  }
}

/** The lock's owner; a bare pid is the format before start times were kept. Null: unreadable. */
function parseOwner(text: string): Owner | null {
  if (/^\d+$/.test(text.trim())) return { pid: Number(text), start: null, boot: null };
  try {
    const o = JSON.parse(text) as Partial<Owner>;
    if (!Number.isInteger(o.pid) || (o.pid as number) <= 0) return null;
    return {
      pid: o.pid as number,
      start: typeof o.start === "string" ? o.start : null,
      boot: typeof o.boot === "string" ? o.boot : null,
    };
  } catch {
    return null;
  }
}

/** Whether the owner still runs: its pid is alive and, where it can be told, is the same process. */
function isHeld(proc: string, owner: Owner): boolean {
  const boot = bootIdOf(proc);
  if (owner.boot && boot && owner.boot !== boot) return false;
  if (!isAlive(owner.pid)) return false;
  const start = owner.start ? startTimeOf(proc, owner.pid) : null;
  return start === null || start === owner.start;
}

function readText(file: string): string | null {
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Field 22 of /proc/<pid>/stat, or null (no /proc, no such process, not readable). */
export function startTimeOf(proc: string, pid: number): string | null {
  try {
    const stat = readFileSync(path.join(proc, String(pid), "stat"), "utf8");
    // The command name (field 2) is in parentheses and may hold spaces and parentheses itself.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

function bootIdOf(proc: string): string | null {
  try {
    return readFileSync(path.join(proc, "sys/kernel/random/boot_id"), "utf8").trim() || null;
  } catch {
    return null;
  }
}
