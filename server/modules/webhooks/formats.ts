// The bytes sent to an endpoint: the outbox payload's JSON text as recorded for `raw`; a chat
// message for the `discord` and `slack` formats, which post into a channel through the service's
// incoming webhook.
import type { EventPayload, WebhookFormat } from "./events.ts";

/** `recorded` is the outbox payload's JSON text, which a raw endpoint gets as it is. */
export function formatPayload(format: WebhookFormat, recorded: string): string {
  if (format === "raw") return recorded;
  const payload = JSON.parse(recorded) as EventPayload;
  const summary = summarize(payload);
  if (format === "discord") {
    return JSON.stringify({
      content: null,
      embeds: [
        {
          title: payload.type,
          description: summary,
          timestamp: payload.timestamp,
          color: 0x0062ff,
          footer: { text: "till" },
        },
      ],
    });
  }
  return JSON.stringify({
    text: `${payload.type}: ${summary}`,
    blocks: [{ type: "section", text: { type: "mrkdwn", text: `*${payload.type}*\n${summary}` } }],
  });
}

function summarize(payload: EventPayload): string {
  const data =
    payload.data && typeof payload.data === "object"
      ? (payload.data as Record<string, unknown>)
      : {};
  const parts: string[] = [];
  for (const key of ["name", "email", "status", "amount", "currency", "id"]) {
    const value = data[key];
    if (typeof value === "string" || typeof value === "number") parts.push(`${key}: ${value}`);
  }
  return parts.join("\n") || payload.type;
}
