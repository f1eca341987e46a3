// A seller's site on another origin (another port on loopback) that embeds till's overlay.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface HostPage {
  url: string;
  close(): Promise<void>;
}

export async function startHostPage(html: string): Promise<HostPage> {
  const server = http.createServer((req, res) => {
    if (req.url === "/" || req.url?.startsWith("/?")) {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(html);
    } else if (req.url?.startsWith("/thanks")) {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end("<!doctype html><title>Thanks</title><h1>Thanks for your order</h1>");
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
