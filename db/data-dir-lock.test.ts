// The embedded database's lock against real processes: a live owner keeps it; a dead owner's lock
// is taken over, also when its pid now belongs to an unrelated process (pid reuse) or the machine
// has rebooted since; without /proc the pid is all there is to go by. cli/main.test.ts covers the
// same through `till dev` and `till migrate`.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { execa, type ResultPromise } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "../test/helpers/process.ts";
import { DataDirInUseError, lockDataDir, startTimeOf } from "./data-dir-lock.ts";

const linux = existsSync("/proc/self/stat");
const lockModule = path.join(path.dirname(fileURLToPath(import.meta.url)), "data-dir-lock.ts");
const children: ResultPromise[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) {
    c.kill("SIGKILL");
    await c.catch(() => {});
  }
});

/** A process that has nothing to do with till: it only sleeps. */
function unrelated(): ResultPromise {
  const child = execa(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { reject: false });
  children.push(child);
  return child;
}

/** Another process that takes the data dir's lock, as `till dev` does, and keeps running. */
async function owner(dir: string): Promise<{ child: ResultPromise; lock: string }> {
  const child = execa(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `const { lockDataDir } = await import(${JSON.stringify(lockModule)});
       lockDataDir(${JSON.stringify(dir)}); console.log("locked"); setInterval(() => {}, 1000);`,
    ],
    { reject: false },
  );
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => d.toString().includes("locked") && resolve());
    void child.then((r) => reject(new Error(`the owner exited: ${r.stderr}`)));
  });
  return { child, lock: readFileSync(path.join(dir, "till.lock"), "utf8") };
}

const lockFile = (dir: string) => path.join(dir, "till.lock");
const inUse = (dir: string, pid: number | undefined) =>
  `The embedded database at ${dir} is in use by another till process (pid ${pid}). Stop it, or set TILL_DATA_DIR to another directory.`;

describe("the data dir lock", () => {
  it("a live owner keeps it; once it is killed its lock is taken over and given back", async () => {
    const dir = tempDir();
    const first = await owner(dir);
    expect(() => lockDataDir(dir)).toThrow(new DataDirInUseError(inUse(dir, first.child.pid)));
    first.child.kill("SIGKILL");
    await first.child;
    const release = lockDataDir(dir);
    expect(JSON.parse(readFileSync(lockFile(dir), "utf8"))).toMatchObject({ pid: process.pid });
    release();
    expect(existsSync(lockFile(dir))).toBe(false);
  });

  it.runIf(linux)(
    "a dead owner's pid now run by an unrelated process does not hold it",
    async () => {
      const dir = tempDir();
      const first = await owner(dir);
      const pid = first.child.pid!;
      first.child.kill("SIGKILL");
      await first.child;
      // The system gives the dead owner's pid to an unrelated process: the lock, unchanged but for
      // that pid, names a live process.
      const other = unrelated();
      await new Promise((r) => setTimeout(r, 100));
      const reused = first.lock.replace(
        new RegExp(`(^|"pid":)${pid}(?!\\d)`),
        (_, before: string) => `${before}${other.pid}`,
      );
      expect(reused).not.toBe(first.lock);
      writeFileSync(lockFile(dir), reused);
      const release = lockDataDir(dir);
      expect(JSON.parse(readFileSync(lockFile(dir), "utf8")).pid).toBe(process.pid);
      release();

      // What told them apart: the owner's start time, counted from this boot.
      const recorded = JSON.parse(first.lock) as { pid: number; start: string; boot: string };
      expect(recorded.start).toMatch(/^\d+$/);
      expect(recorded.boot).toMatch(/^[0-9a-f-]{36}$/);
      // The same process at its own start time does hold it ...
      const current = {
        pid: other.pid,
        start: startTimeOf("/proc", other.pid!),
        boot: recorded.boot,
      };
      expect(current.start).not.toBeNull();
      writeFileSync(lockFile(dir), JSON.stringify(current));
      expect(() => lockDataDir(dir)).toThrow(inUse(dir, other.pid));
      // ... unless it was written before the machine last started.
      writeFileSync(
        lockFile(dir),
        JSON.stringify({ ...current, boot: "00000000-0000-0000-0000-000000000000" }),
      );
      lockDataDir(dir)();
    },
  );

  it("without /proc, or from a version that wrote only the pid, a live pid holds it", async () => {
    const dir = tempDir();
    const other = unrelated();
    await new Promise((r) => setTimeout(r, 100));
    const noProc = { procDir: path.join(dir, "no-proc") };
    writeFileSync(lockFile(dir), JSON.stringify({ pid: other.pid, start: "1", boot: "b" }));
    expect(() => lockDataDir(dir, noProc)).toThrow(inUse(dir, other.pid));
    writeFileSync(lockFile(dir), String(other.pid));
    expect(() => lockDataDir(dir)).toThrow(inUse(dir, other.pid));
    other.kill("SIGKILL");
    await other;
    lockDataDir(dir, noProc)();
    // An unreadable lock (a crash mid-write) is nobody's.
    writeFileSync(lockFile(dir), "");
    lockDataDir(dir)();
  });

  it("giving back leaves a lock another process took over in the meantime", () => {
    const dir = tempDir();
    const release = lockDataDir(dir);
    writeFileSync(lockFile(dir), JSON.stringify({ pid: 1, start: null, boot: null }));
    release();
    expect(readFileSync(lockFile(dir), "utf8")).toContain('"pid":1');
  });
});
