// Opening a URL for the user: only on an interactive terminal that is not an SSH session; otherwise
// the URL is printed so it can be opened elsewhere.
import type { CommandContext } from "../lib/command.ts";
import { openBrowser } from "./account.ts";

export function openUrl(ctx: CommandContext, url: string): void {
  const interactive = Boolean(process.stdout.isTTY) && !ctx.out.json;
  if (!interactive || ctx.session.env.remoteSession) {
    ctx.out.note(`Open ${url}`);
    return;
  }
  openBrowser(url, ctx.session.env.browser);
  ctx.out.note(`Opened ${url}`);
}
