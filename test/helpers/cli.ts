// Drives the real `till` CLI against a test server, with its own config dir and no TTY.
import { execa } from "execa";
import { tempDir, tillBin } from "./process.ts";
import { api, type TestUser } from "./auth.ts";

export function cliEnv(
  configHome = tempDir("till-cli-"),
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    HOME: configHome,
    XDG_CONFIG_HOME: configHome,
    NO_COLOR: "1",
    ...extra,
  };
}

export function till(args: string[], env: Record<string, string>, input?: string) {
  return execa(process.execPath, [tillBin, ...args], {
    env,
    extendEnv: false,
    reject: false,
    timeout: 60_000,
    ...(input !== undefined ? { input } : { stdin: "ignore" }),
  });
}

/** Runs `till login` and approves its code as `user` through the device endpoints, like the /device page. */
export async function loginAs(
  base: string,
  user: TestUser,
  env: Record<string, string>,
  extraArgs: string[] = [],
  /** False: `till login` finds the server itself (the profile's, or the one it last used). */
  serverFlag = true,
) {
  const server = serverFlag ? ["--server", base] : [];
  const child = execa(process.execPath, [tillBin, "login", ...server, ...extraArgs], {
    env,
    extendEnv: false,
    reject: false,
    timeout: 60_000,
    stdin: "ignore",
  });
  let stderr = "";
  const code = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no code printed:\n${stderr}`)), 20_000);
    child.stderr!.on("data", (d: Buffer) => {
      stderr += d.toString();
      const m = /^\s{4}(\S{8})\s*$/m.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    void child.then(() =>
      reject(new Error(`till login exited before printing a code:\n${stderr}`)),
    );
  });
  const check = await api(base, `/api/auth/device?user_code=${encodeURIComponent(code)}`, {
    token: user.token,
  });
  if (check.status !== 200)
    throw new Error(`device check failed: ${check.status} ${JSON.stringify(check.body)}`);
  const approve = await api(base, "/api/auth/device/approve", {
    token: user.token,
    body: { userCode: code },
  });
  if (approve.status !== 200)
    throw new Error(`device approve failed: ${approve.status} ${JSON.stringify(approve.body)}`);
  const result = await child;
  return { ...result, code };
}
