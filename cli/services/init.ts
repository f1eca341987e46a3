// Writes the webhook handler template and its package.json, never over existing files unless told.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { CommandContext } from "../lib/command.ts";
import { AbortError } from "../lib/errors.ts";
import pkg from "../../package.json" with { type: "json" };

export async function initWebhookHandler(
  ctx: CommandContext,
  flags: { lang: "ts"; dir: string; force?: boolean | undefined },
): Promise<void> {
  const dir = path.resolve(flags.dir);
  const files: Record<string, string> = {
    "server.ts": readFileSync(
      new URL("../templates/webhook-handler.ts.txt", import.meta.url),
      "utf8",
    ),
    "package.json": `${JSON.stringify(
      {
        name: path
          .basename(dir)
          .toLowerCase()
          .replace(/[^a-z0-9-]+/g, "-"),
        private: true,
        type: "module",
        scripts: { start: "node server.ts" },
        engines: { node: ">=22.18" },
        dependencies: {
          express: pkg.dependencies.express,
          standardwebhooks: pkg.dependencies.standardwebhooks,
        },
      },
      null,
      2,
    )}\n`,
  };
  const existing = Object.keys(files).filter((f) => existsSync(path.join(dir, f)));
  if (existing.length > 0 && !flags.force)
    throw new AbortError(`${dir} already has ${existing.join(", ")}.`, {
      hint: "Pass --force to overwrite, or --dir for another place.",
    });
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  const rel = path.relative(process.cwd(), dir) || ".";
  ctx.out.result({ dir, files: Object.keys(files) }, () =>
    [
      `Wrote ${Object.keys(files).join(", ")} in ${rel}. Next:`,
      `  cd ${rel} && npm install`,
      "  export WEBHOOK_SECRET=$(till listen --print-secret)",
      "  npm start",
      "  till listen --forward-to http://localhost:3000/webhooks   # in another terminal",
      "  till trigger order.paid                                    # and another",
    ].join("\n"),
  );
}
