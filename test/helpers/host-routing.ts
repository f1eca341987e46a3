// Sends this process's fetch() requests for some public hosts (e.g. discord.com) to local servers
// instead, over plain HTTP, by swapping the global undici dispatcher that Node's fetch uses. For
// third-party code with hard-coded URLs (better-auth's built-in Discord provider), so it runs
// unchanged against a local server speaking that service's protocol. Other hosts connect as usual.
import net from "node:net";
import { Agent, buildConnector, getGlobalDispatcher, setGlobalDispatcher } from "undici";

/** Routes `host` → `http://127.0.0.1:port` origins; returns the function that undoes it. */
export function routeHosts(routes: Record<string, string>): () => void {
  const previous = getGlobalDispatcher();
  const direct = buildConnector({});
  const agent = new Agent({
    connect(opts, callback) {
      const target = routes[opts.hostname];
      if (!target) return direct(opts, callback);
      const { hostname, port } = new URL(target);
      const socket = net.connect(Number(port), hostname);
      socket.once("connect", () => callback(null, socket));
      socket.once("error", (err) => callback(err, null));
    },
  });
  setGlobalDispatcher(agent);
  return () => {
    setGlobalDispatcher(previous);
    void agent.close();
  };
}
