// `till meters list|get|create|update|quantities` and `till events ingest|list|get`.
import type { Command } from "commander";
import { contextOf, organizationParam, type CommandContext } from "../lib/command.ts";
import { AbortError, ApiResponseError, EXIT } from "../lib/errors.ts";
import { renderTable } from "../lib/output.ts";
import {
  addGetCommand,
  addListCommand,
  collect,
  parsePairs,
  printOne,
  type ResourceSpec,
} from "../lib/resource.ts";
import type { Event as EventRow, Meter } from "../../shared/types.ts";

const meterSpec: ResourceSpec<Meter> = {
  path: "/v1/meters/",
  noun: "meter",
  columns: [
    { header: "id", value: (m) => m.id },
    { header: "name", value: (m) => m.name },
    {
      header: "aggregation",
      value: (m) =>
        "property" in m.aggregation
          ? `${m.aggregation.func}(${m.aggregation.property})`
          : m.aggregation.func,
    },
    {
      header: "filter",
      value: (m) => `${m.filter.clauses.length} clause(s), ${m.filter.conjunction}`,
    },
  ],
};

export function configureMeterCommands(program: Command): void {
  const meters = program.command("meters").description("usage meters");
  addListCommand(meters, meterSpec);
  addGetCommand(meters, meterSpec);
  meters
    .command("create")
    .description("create a meter from a filter over events and an aggregation")
    .requiredOption("--name <name>", "meter name")
    .option("--filter <clause>", 'filter clause "property op value" (repeatable)', collect)
    .option("--or", "match any clause instead of all")
    .option("--aggregation <agg>", "count, or sum|max|min|avg|unique:property", "count")
    .option("--org <id-or-slug>", "organization (default: the profile's)")
    .addHelpText(
      "after",
      "\nExample:\n  $ till meters create --name \"LLM tokens\" --filter 'name eq llm.completion' --aggregation sum:tokens\n",
    )
    .action(async (raw: unknown, c: Command) => {
      const [{ parseFlags }, { meterCreateFlags }] = await Promise.all([
        import("../lib/flags.ts"),
        import("./meters-flags.ts"),
      ]);
      const flags = parseFlags(meterCreateFlags, raw);
      const ctx = await contextOf(c);
      const body = {
        name: flags.name,
        filter: { conjunction: flags.or ? "or" : "and", clauses: flags.filter ?? [] },
        aggregation: flags.aggregation,
        organization_id: await organizationParam(ctx, flags.org, { announce: true }),
      };
      printOne(ctx, meterSpec, await ctx.api().post<Meter>(meterSpec.path, body), "Created meter.");
    });
  meters
    .command("update <id>")
    .description("rename a meter")
    .requiredOption("--name <name>", "new name")
    .action(async (_id: string, raw: unknown, c: Command) => {
      const [{ idArgs, parseArgs, parseFlags }, { meterUpdateFlags }] = await Promise.all([
        import("../lib/flags.ts"),
        import("./meters-flags.ts"),
      ]);
      const { id } = parseArgs(idArgs, c);
      const flags = parseFlags(meterUpdateFlags, raw);
      const ctx = await contextOf(c);
      printOne(
        ctx,
        meterSpec,
        await ctx.api().patch<Meter>(`${meterSpec.path}${id}`, { name: flags.name }),
      );
    });
  meters
    .command("quantities <id>")
    .description("usage per interval over a period")
    .option("--interval <interval>", "hour | day | week | month | year", "day")
    .option("--since <when>", "start: 30d, 12h, 2w or a timestamp", "30d")
    .option("--until <when>", "end: 12h, 1d or a timestamp (default now)")
    .option("--customer <id>", "one customer")
    .option("--external-customer <id>", "one customer by your id")
    .addHelpText(
      "after",
      "\nExample:\n  $ till meters quantities <meter-id> --interval day --since 30d\n\nIn sandbox mode, now is the organization's sandbox clock (`till clock`), where usage sent\nafter `till clock advance` is.\n",
    )
    .action(async (_id: string, raw: unknown, c: Command) => {
      const [{ idArgs, parseArgs, parseFlags }, { quantitiesFlags, resolvePoint }] =
        await Promise.all([import("../lib/flags.ts"), import("./meters-flags.ts")]);
      const { id } = parseArgs(idArgs, c);
      const flags = parseFlags(quantitiesFlags, raw);
      const ctx = await contextOf(c);
      const relative = !(flags.since instanceof Date) || !(flags.until instanceof Date);
      const now = relative ? await organizationNow(ctx, id) : new Date();
      const res = await ctx
        .api()
        .get<{ quantities: { timestamp: string; quantity: number }[]; total: number }>(
          `${meterSpec.path}${id}/quantities`,
          {
            start_timestamp: resolvePoint(flags.since, now).toISOString(),
            end_timestamp: resolvePoint(flags.until ?? { agoMs: 0 }, now).toISOString(),
            interval: flags.interval,
            timezone: "UTC",
            customer_id: flags.customer,
            external_customer_id: flags.externalCustomer,
          },
        );
      ctx.out.result(
        res,
        () =>
          `${renderTable(
            res.quantities,
            [
              { header: "timestamp", value: (q) => q.timestamp },
              { header: "quantity", value: (q) => q.quantity },
            ],
            ctx.out,
          )}\ntotal ${res.total}`,
      );
    });

  configureEventCommands(program);
}

/**
 * Now for the meter's organization: its sandbox clock, which `till clock advance` moves and where
 * usage ingested without a timestamp lands; real time in production (404) or when the token may
 * not read the clock.
 */
async function organizationNow(ctx: CommandContext, meterId: string): Promise<Date> {
  const api = ctx.api();
  const meter = await api.get<Meter>(`${meterSpec.path}${meterId}`);
  const clock = await api
    .get<{ now: string }>("/v1/sandbox/clock", { organization_id: meter.organization_id })
    .catch((err: unknown) => {
      if (!(err instanceof ApiResponseError)) throw err;
      if (err.status === 403)
        ctx.out.note(
          "Counting from real time: this token may not read the sandbox clock (subscriptions:read).",
        );
      if (err.status === 403 || err.status === 404) return null;
      throw err;
    });
  return clock ? new Date(clock.now) : new Date();
}

function configureEventCommands(program: Command): void {
  const events = program.command("events").description("usage events");
  const spec: ResourceSpec<EventRow> = {
    path: "/v1/events/",
    noun: "event",
    columns: [
      { header: "timestamp", value: (e) => e.timestamp },
      { header: "name", value: (e) => e.name },
      { header: "customer", value: (e) => e.customer_id ?? e.external_customer_id },
      { header: "metadata", value: (e) => e.metadata },
    ],
  };
  addListCommand(
    events,
    spec,
    (c) => c.option("--name <name>", "only events with this name"),
    (f) => ({ name: f.name as string | undefined }),
  );
  addGetCommand(events, spec);
  events
    .command("resend <event-id>")
    .description("send a webhook event again (same webhook-id), as `webhooks redeliver`")
    .option("--endpoint <id>", "only if it went to this endpoint (checked in the delivery log)")
    .addHelpText(
      "after",
      "\nExamples:\n  $ till events resend <event-id>\n  $ till events resend <event-id> --endpoint <endpoint-id>\n\nEvent ids are in `till webhooks deliveries list` (the EVENT ID column).\n",
    )
    .action(async (_id: string, raw: unknown, c: Command) => {
      const [{ eventIdArgs, parseArgs, parseFlags }, { resendEvent }, { resendFlags }] =
        await Promise.all([
          import("../lib/flags.ts"),
          import("../services/events.ts"),
          import("./meters-flags.ts"),
        ]);
      const { eventId } = parseArgs(eventIdArgs, c);
      const flags = parseFlags(resendFlags, raw);
      await resendEvent(await contextOf(c), eventId, flags.endpoint ?? null);
    });
  events
    .command("ingest")
    .description("ingest usage events from flags, a JSON file, or NDJSON on stdin (batched)")
    .option("--name <name>", "event name (one event from flags)")
    .option("--customer <id>", "customer id")
    .option("--external-customer <id>", "your customer id")
    .option("--metadata <key=value>", "metadata (repeatable)", collect)
    .option("--file <path>", "JSON array or NDJSON file of events; - for stdin")
    .option("--batch-size <n>", "events per request (max 1000)", "500")
    .option("--org <id-or-slug>", "organization (default: the profile's)")
    .addHelpText(
      "after",
      "\nExamples:\n  $ till events ingest --name api_call --external-customer user_42 --metadata tokens=120\n  $ cat events.ndjson | till events ingest --file -\n",
    )
    .action(async (raw: unknown, c: Command) => {
      const [{ ingestEvents }, { parseFlags }, { ingestFlags }] = await Promise.all([
        import("../services/events.ts"),
        import("../lib/flags.ts"),
        import("./meters-flags.ts"),
      ]);
      const flags = parseFlags(ingestFlags, raw);
      const ctx = await contextOf(c);
      const single = flags.name
        ? [
            {
              name: flags.name,
              ...(flags.customer ? { customer_id: flags.customer } : {}),
              ...(flags.externalCustomer ? { external_customer_id: flags.externalCustomer } : {}),
              metadata: parsePairs(flags.metadata, "--metadata") ?? {},
            },
          ]
        : null;
      if (!single && !flags.file)
        throw new AbortError(
          "Give an event with --name (and --customer or --external-customer), or --file.",
          { exitCode: EXIT.usage },
        );
      await ingestEvents(ctx, {
        organization: () => organizationParam(ctx, flags.org, { announce: true }),
        single,
        file: flags.file ?? null,
        batchSize: flags.batchSize,
      });
    });
}
