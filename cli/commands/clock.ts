// `till clock`, `till clock advance 1mo|14d|<RFC 3339>`, `till clock reset`: the organization's
// sandbox clock. Advancing answers once every renewal, trial end, retry and cancellation due up to
// the new time has run, so the next `till subscriptions`/orders read shows them.
import type { Command } from "commander";
import { contextOf, organizationParam, type CommandContext } from "../lib/command.ts";
import { AbortError, ApiResponseError } from "../lib/errors.ts";
import type { Advance } from "./clock-flags.ts";

/**
 * Longer than the server works on one advance (SANDBOX_CLOCK_ADVANCE_TIMEOUT_SECONDS, at most 600),
 * so its answer, or its 503 naming how far it got, always arrives.
 */
const ADVANCE_TIMEOUT_MS = 11 * 60_000;

interface ClockOut {
  organization_id: string;
  now: string;
  offset_seconds?: number;
}

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

/** The advance request's body: months become a target time counted from the clock's `now`. */
export function advanceBody(when: Advance, now: Date): { to: string } | { seconds: number } {
  return "months" in when ? { to: addMonths(now, when.months).toISOString() } : when;
}

/** As the server judges it: a second of slack, so "to: now" read a moment ago is not a move back. */
function isBehind(target: string, clock: ClockOut): boolean {
  return Date.parse(target) < Date.parse(clock.now) - 1000;
}

function isRefusedAsBackwards(err: unknown): boolean {
  return (
    err instanceof ApiResponseError &&
    err.status === 422 &&
    JSON.stringify(err.detail).includes("only moves forward")
  );
}

/**
 * A target behind the clock, with what can be done about it: `till clock reset` goes back to real
 * time, never earlier, so it helps only for a target between real time and the clock.
 */
function backwards(target: string, clock: ClockOut, org: string | undefined): AbortError {
  const offsetMs = (clock.offset_seconds ?? 0) * 1000;
  const real = new Date(Date.parse(clock.now) - offsetMs);
  const orgArg = org ? ` --org ${org}` : "";
  const message = `The sandbox clock only moves forward: it is at ${clock.now}, after ${target}.`;
  if (offsetMs === 0)
    return new AbortError(message, {
      hint: "It runs at real time now and never goes behind real time: `till clock reset` would not move it back either.",
    });
  if (Date.parse(target) < real.getTime())
    return new AbortError(message, {
      hint: `\`till clock reset${orgArg}\` sets it back to real time (about ${real.toISOString()}), no earlier: ${target} has passed in real time too.`,
    });
  return new AbortError(message, {
    hint: `To go back, \`till clock reset${orgArg}\` sets it to real time (about ${real.toISOString()}), then \`till clock advance ${target}${orgArg}\` moves it there. What was billed while the clock ran ahead stays billed.`,
  });
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
    .addHelpText(
      "after",
      "\nExamples:\n  $ till clock\n  $ till clock advance 1mo\n  $ till clock --org acme --json\n",
    )
    .action(async (flags, c: Command) => {
      const ctx = await contextOf(c);
      const org = await organizationParam(ctx, flags.org, { announce: true });
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
    .action(async (_when: string, flags, c: Command) => {
      const [{ parseArgs }, { clockAdvanceArgs }] = await Promise.all([
        import("../lib/flags.ts"),
        import("./clock-flags.ts"),
      ]);
      const { when } = parseArgs(clockAdvanceArgs, c);
      const ctx = await contextOf(c);
      const org = await organizationParam(ctx, flags.org ?? c.parent?.opts().org, {
        announce: true,
      });
      const api = ctx.api();
      const current = await api.get<ClockOut>(
        "/v1/sandbox/clock",
        org ? { organization_id: org } : {},
      );
      const body = { ...advanceBody(when, new Date(current.now)), organization_id: org };
      const orgFlag = flags.org ?? c.parent?.opts().org;
      if ("to" in body && isBehind(body.to, current)) throw backwards(body.to, current, orgFlag);
      // The server answers once every renewal on the way is made: as long as its advance may take.
      const moved = await api
        .post<ClockOut>("/v1/sandbox/clock/advance", body, undefined, {
          timeoutMs: ADVANCE_TIMEOUT_MS,
        })
        .catch(async (err: unknown) => {
          // Another advance moved the clock past the target since it was read.
          if (!("to" in body) || !isRefusedAsBackwards(err)) throw err;
          const now = await api.get<ClockOut>(
            "/v1/sandbox/clock",
            org ? { organization_id: org } : {},
          );
          throw backwards(body.to, now, orgFlag);
        });
      show(ctx, moved, "Sandbox clock now");
    });
  clock
    .command("reset")
    .description("set the clock back to real time")
    .option("--org <id>", "organization id or slug (default: the profile's)")
    .addHelpText(
      "after",
      "\nWhat was billed while the clock ran ahead stays: a subscription renewed into the clock's\nfuture keeps that period and renews again when real time reaches its end.\n",
    )
    .action(async (flags, c: Command) => {
      const ctx = await contextOf(c);
      const org = await organizationParam(ctx, flags.org ?? c.parent?.opts().org, {
        announce: true,
      });
      show(
        ctx,
        await ctx.api().post<ClockOut>("/v1/sandbox/clock/reset", { organization_id: org }),
        "Sandbox clock reset to",
      );
    });
}
