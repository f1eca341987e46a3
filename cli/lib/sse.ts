// A minimal server-sent-events reader for the CLI's live streams (listen, logs tail). Each read
// waits at most `idleMs`: the server sends a heartbeat every 15 s, so silence longer than that
// means a dead connection (a laptop that slept with the socket open) and the caller reconnects.
export class StreamIdleError extends Error {
  override name = "StreamIdleError";
}

export async function* sseMessages(
  body: ReadableStream<Uint8Array>,
  idleMs = 45_000,
): AsyncGenerator<{ id: string | null; data: string }> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const idle = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new StreamIdleError("stream idle")), idleMs);
      });
      const chunk = await Promise.race([reader.read(), idle]).finally(() => clearTimeout(timer));
      if (chunk.done) return;
      buffer += decoder.decode(chunk.value, { stream: true });
      for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let id: string | null = null;
        const data: string[] = [];
        for (const line of block.split("\n")) {
          if (line.startsWith("id:")) id = line.slice(3).trim();
          else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
        }
        if (data.length > 0) yield { id, data: data.join("\n") };
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** `subscription.*` style filters: `*` matches any run of characters. */
export function eventMatcher(patterns: string[] | null): (type: string) => boolean {
  if (!patterns || patterns.length === 0) return () => true;
  const res = patterns.map(
    (p) =>
      new RegExp(
        `^${p
          .split("*")
          .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
          .join(".*")}$`,
      ),
  );
  return (type) => res.some((re) => re.test(type));
}
