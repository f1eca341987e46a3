// A TCP proxy in front of PostgreSQL that a test can cut, to play an outage without stopping a server.
import net from "node:net";

/** Forwards to PostgreSQL until cut; cut, it drops every connection and answers nothing. */
export class CuttableProxy {
  readonly sockets = new Set<net.Socket>();
  cut = false;
  server: net.Server;

  constructor(target: { host: string; port: number }) {
    this.server = net.createServer((client) => {
      this.sockets.add(client);
      client.on("error", () => {});
      client.on("close", () => this.sockets.delete(client));
      if (this.cut) return; // accepted, never answered: the client's connect timeout decides
      const upstream = net.connect(target.port, target.host);
      this.sockets.add(upstream);
      upstream.on("error", () => client.destroy());
      upstream.on("close", () => this.sockets.delete(upstream));
      client.pipe(upstream).pipe(client);
    });
  }

  listen(): Promise<number> {
    return new Promise((resolve) =>
      this.server.listen(0, "127.0.0.1", () =>
        resolve((this.server.address() as net.AddressInfo).port),
      ),
    );
  }

  down(): void {
    this.cut = true;
    for (const s of this.sockets) s.destroy();
  }

  up(): void {
    this.cut = false;
  }

  close(): void {
    this.down();
    this.server.close();
  }
}
