// A TCP proxy in front of PostgreSQL that a test can cut, to play an outage without stopping a server:
// cut (connections hang) or refusing (the port closed), at once or when a client sends a statement.
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
      upstream.pipe(client);
      client.on("end", () => upstream.end());
      client.on("data", (chunk: Buffer) => {
        const trip = this.#trip;
        if (trip && chunk.toString("latin1").includes(trip.marker)) {
          this.#trip = null;
          this.refuse();
          trip.tripped();
          return;
        }
        upstream.write(chunk);
      });
    });
  }

  #port = 0;
  #trip: { marker: string; tripped: () => void } | null = null;

  listen(port = 0): Promise<number> {
    return new Promise((resolve) =>
      this.server.listen(port, "127.0.0.1", () => {
        this.#port = (this.server.address() as net.AddressInfo).port;
        resolve(this.#port);
      }),
    );
  }

  /**
   * The next time a client sends `marker`, every connection drops and the port refuses new ones
   * until listen() again, as a server stopped at that instant; resolves then.
   */
  tripOn(marker: string): Promise<void> {
    return new Promise((tripped) => (this.#trip = { marker, tripped }));
  }

  /** Drops every connection and stops listening: connecting is refused. */
  refuse(): void {
    this.server.close();
    for (const s of this.sockets) s.destroy();
  }

  /** Listens again on the port it had. */
  reopen(): Promise<number> {
    return this.listen(this.#port);
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
