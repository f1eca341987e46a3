// Requests Node's HTTP parser refuses before Express sees them (a 1 MB URL, malformed headers):
// answered in Polar's error shape instead of Node's bare status line, so every 4xx a client can
// get from this server reads the same way.
import { STATUS_CODES, type Server } from "node:http";
import type { Duplex } from "node:stream";

function answer(code: string | undefined): [number, string, string] {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return [431, "RequestHeaderFieldsTooLarge", "The request line and headers exceed 16 KB."];
    case "HPE_URI_TOO_LONG":
      return [414, "URITooLong", "The request URL is too long."];
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return [408, "RequestTimeout", "The request was not received in time."];
    default:
      return [400, "BadRequest", "The request could not be parsed as HTTP/1.1."];
  }
}

export function answerClientErrors(server: Server): void {
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === "ECONNRESET" || !socket.writable) return void socket.destroy();
    const [status, error, detail] = answer(err.code);
    const body = JSON.stringify({ error, detail });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
}
