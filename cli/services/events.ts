// Event ingestion from the terminal: one event from flags, or many from a JSON array / NDJSON file or
// stdin, sent in batches; prints inserted and duplicate counts.
import { readFileSync } from "node:fs";
import type { CommandContext } from "../lib/command.ts";
import { AbortError, EXIT } from "../lib/errors.ts";

export async function ingestEvents(
  ctx: CommandContext,
  input: {
    /** Resolved once the events are read, so a file error is the only thing said. */
    organization: () => Promise<string | undefined>;
    single: object[] | null;
    file: string | null;
    batchSize: number;
  },
): Promise<void> {
  const read = input.single ?? readEvents(input.file!);
  // A user token names the organization on each event (Polar's ingest has no other place for it);
  // an event that names its own keeps it.
  const organizationId = await input.organization();
  const events = organizationId
    ? read.map((e) => ({ organization_id: organizationId, ...e }))
    : read;
  const api = ctx.api();
  let inserted = 0;
  let duplicates = 0;
  for (let i = 0; i < events.length; i += input.batchSize) {
    const batch = events.slice(i, i + input.batchSize);
    const res = await api.post<{ inserted: number; duplicates?: number }>("/v1/events/ingest", {
      events: batch,
    });
    inserted += res.inserted;
    duplicates += res.duplicates ?? 0;
    if (!ctx.out.json && events.length > input.batchSize)
      ctx.out.note(
        ctx.out.dim(`sent ${Math.min(i + input.batchSize, events.length)}/${events.length}`),
      );
  }
  ctx.out.result(
    { inserted, duplicates },
    () =>
      `Ingested ${inserted} event${inserted === 1 ? "" : "s"}${duplicates ? ` (${duplicates} duplicate${duplicates === 1 ? "" : "s"} skipped)` : ""}.`,
  );
}

function readEvents(file: string): object[] {
  const text = readFileSync(file === "-" ? 0 : file, "utf8").trim();
  if (!text) return [];
  if (text.startsWith("[")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw new AbortError(`${file} is not valid JSON: ${(err as Error).message}`, {
        exitCode: EXIT.usage,
      });
    }
    if (!Array.isArray(parsed))
      throw new AbortError("The file must hold a JSON array of events or one event per line.", {
        exitCode: EXIT.usage,
      });
    return parsed as object[];
  }
  return text.split("\n").map((line, n) => {
    try {
      return JSON.parse(line) as object;
    } catch {
      throw new AbortError(`Line ${n + 1} is not valid JSON.`, { exitCode: EXIT.usage });
    }
  });
}

/** Redelivers a webhook event; with an endpoint, only after finding it in that endpoint's log. */
export async function resendEvent(
  ctx: CommandContext,
  id: string,
  endpointId: string | null,
): Promise<void> {
  const api = ctx.api();
  if (endpointId) {
    const deliveries = await api.all<{ webhook_event: { id: string } }>(
      "/v1/webhooks/deliveries/",
      { endpoint_id: endpointId },
      20,
    );
    if (!deliveries.some((d) => d.webhook_event.id === id))
      throw new AbortError(`Event ${id} was not sent to endpoint ${endpointId}.`, {
        hint: `Its deliveries: till webhooks deliveries list --endpoint ${endpointId}`,
      });
  }
  await api.post(`/v1/webhooks/events/${encodeURIComponent(id)}/redeliver`, {});
  ctx.out.result(
    { event_id: id, endpoint_id: endpointId, resent: true },
    () => `Resending event ${id}${endpointId ? ` to endpoint ${endpointId}` : ""}.`,
  );
}
