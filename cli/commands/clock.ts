// `till clock`, `till clock advance 1mo|14d|<RFC 3339>`, `till clock reset`: the organization's
// sandbox clock. Advancing answers once every renewal, trial end, retry and cancellation due up to
// the new time has run, so the next `till subscriptions`/orders read shows them.
import type { Command } from "commander";
import { contextOf, organizationParam, type CommandContext } from "../lib/command.ts";
import { AbortError, EXIT } from "../lib/errors.ts";

interface ClockOut {
  organization_id: string;
  now: string;
  offset_seconds?: number;
}

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** Month arithmetic as the server bills: the day clamped to the target month's last day. */
export function addMonths(from: Date, months: number): Date {
  const d = new Date(from.getTime());
  const day = d.getUTCDate();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() + months);
  const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, last));
  return d;
}

/** "1mo", "2y", "14d", "36h", "90m", "30s" from `now`, or an RFC 3339 time: the target. */
export function parseAdvance(text: string, now: Date): { to: string } | { seconds: number } {
  const m = /^(\d+)(mo|y|w|d|h|m|s)$/.exec(text.trim());
  if (m) {
    const n = Number(m[1]);
    if (m[2] === "mo") return { to: addMonths(now, n).toISOString() };
    if (m[2] === "y") return { to: addMonths(now, 12 * n).toISOString() };
    return { seconds: n * UNITS[m[2]!]! };
  }
  if (/^\d{4}-\d{2}-\d{2}T/.test(text) && !Number.isNaN(Date.parse(text))) return { to: text };
  throw new AbortError(
    `Expected a duration (1mo, 1y, 2w, 14d, 36h, 90m, 30s) or an RFC 3339 time; got "${text}".`,
    { exitCode: EXIT.usage },
  );
}

function show(ctx: CommandContext, clock: ClockOut, verb: string): void {
  ctx.out.result(clock, () => {
    const ahead = clock.offset_seconds
      ? ` (${(clock.offset_seconds / 86_400).toFixed(2)} days ahead of real time)`
      : "";
    return `${verb} ${clock.now}${ahead}`;
  });
}

export function configureClockCommand(program: Command): void {
  const clock = program
    .command("clock")
    .description("the organization's sandbox clock (sandbox mode)")
    .option("--org <id>", "organization id or slug (default: the profile's)")
    .action(async (flags, c: Command) => {
      const ctx = await contextOf(c);
      const org = await organizationParam(ctx, flags.org);
      show(
        ctx,
        await ctx.api().get<ClockOut>("/v1/sandbox/clock", org ? { organization_id: org } : {}),
        "Sandbox clock:",
      );
    });
  clock
    .command("advance <when>")
    .description("move the clock forward and run the billing due by then")
    .option("--org <id>", "organization id or slug (default: the profile's)")
    .addHelpText(
      "after",
      "\nExamples:\n  $ till clock advance 1mo\n  $ till clock advance 14d\n  $ till clock advance 2027-01-01T00:00:00Z\n",
    )
    .action(async (when: string, flags, c: Command) => {
      const ctx = await contextOf(c);
      const org = await organizationParam(ctx, flags.org ?? c.parent?.opts().org);
      const api = ctx.api();
      const current = await api.get<ClockOut>(
        "/v1/sandbox/clock",
        org ? { organization_id: org } : {},
      );
      const body = { ...parseAdvance(when, new Date(current.now)), organization_id: org };
      show(ctx, await api.post<ClockOut>("/v1/sandbox/clock/advance", body), "Sandbox clock now");
    });
  clock
    .command("reset")
    .description("set the clock back to real time")
    .option("--org <id>", "organization id or slug (default: the profile's)")
    .action(async (flags, c: Command) => {
      const ctx = await contextOf(c);
      const org = await organizationParam(ctx, flags.org ?? c.parent?.opts().org);
      show(
        ctx,
        await ctx.api().post<ClockOut>("/v1/sandbox/clock/reset", { organization_id: org }),
        "Sandbox clock reset to",
      );
    });
}
