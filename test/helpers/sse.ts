// A minimal server-sent-events client over fetch, for tests: collects events, can resume with
// Last-Event-ID, and reports when the server ends the stream.
export interface SseEvent {
  id: string | null;
  event: string | null;
  data: string;
}

export interface SseClient {
  status: number;
  events: SseEvent[];
  /** Resolves when the server ends the stream (or the client closes it). */
  ended: Promise<void>;
  close(): void;
}

/** `token` null: a public stream, no Authorization header. */
export async function openSse(
  url: string,
  token: string | null,
  lastEventId?: string,
): Promise<SseClient> {
  const controller = new AbortController();
  const headers: Record<string, string> = { accept: "text/event-stream" };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (lastEventId) headers["last-event-id"] = lastEventId;
  const res = await fetch(url, { headers, signal: controller.signal });
  const events: SseEvent[] = [];
  const ended = (async () => {
    if (!res.body || !res.headers.get("content-type")?.startsWith("text/event-stream")) return;
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const chunk of res.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        for (let cut = buffer.indexOf("\n\n"); cut >= 0; cut = buffer.indexOf("\n\n")) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const ev: SseEvent = { id: null, event: null, data: "" };
          const data: string[] = [];
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) continue;
            const [field, ...rest] = line.split(":");
            const value = rest.join(":").replace(/^ /, "");
            if (field === "id") ev.id = value;
            else if (field === "event") ev.event = value;
            else if (field === "data") data.push(value);
          }
          if (data.length > 0) {
            ev.data = data.join("\n");
            events.push(ev);
          }
        }
      }
    } catch {
      // aborted by close()
    }
  })();
  return { status: res.status, events, ended, close: () => controller.abort() };
}
