// Event ingestion from the terminal: one event from flags, or many from a JSON array / NDJSON file or
// stdin, sent in batches; prints inserted and duplicate counts.
import { readFileSync } from "node:fs";
import type { CommandContext } from "../lib/command.ts";
import { AbortError, EXIT } from "../lib/errors.ts";

export async function ingestEvents(
  ctx: CommandContext,
  input: { single: object[] | null; file: string | null; batchSize: number },
): Promise<void> {
  const events = input.single ?? readEvents(input.file!);
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
    const parsed: unknown = JSON.parse(text);
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
