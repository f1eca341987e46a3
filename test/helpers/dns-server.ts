// A tiny authoritative DNS server over UDP for tests: answers A queries from a map the test can
// change at any time (to play a DNS-rebinding attack), NXDOMAIN for unknown names, no AAAA records.
import dgram from "node:dgram";

export interface DnsServer {
  address: string;
  records: Map<string, string>;
  queries: string[];
  close(): Promise<void>;
}

export async function startDnsServer(records: Record<string, string> = {}): Promise<DnsServer> {
  const map = new Map(Object.entries(records));
  const queries: string[] = [];
  const socket = dgram.createSocket("udp4");
  socket.on("message", (msg, rinfo) => {
    let offset = 12;
    const labels: string[] = [];
    while (msg[offset]! !== 0) {
      const len = msg[offset]!;
      labels.push(msg.subarray(offset + 1, offset + 1 + len).toString("ascii"));
      offset += len + 1;
    }
    offset += 1;
    const qtype = msg.readUInt16BE(offset);
    const question = msg.subarray(12, offset + 4);
    const name = labels.join(".").toLowerCase();
    queries.push(name);
    const ip = map.get(name);
    const answers = ip && qtype === 1 ? [ip] : [];
    const header = Buffer.alloc(12);
    header.writeUInt16BE(msg.readUInt16BE(0), 0);
    header.writeUInt16BE(ip ? 0x8180 : 0x8183, 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    const rrs = answers.map((a) => {
      const rr = Buffer.alloc(16);
      rr.writeUInt16BE(0xc00c, 0);
      rr.writeUInt16BE(1, 2);
      rr.writeUInt16BE(1, 4);
      rr.writeUInt32BE(0, 6);
      rr.writeUInt16BE(4, 10);
      for (const [i, octet] of a.split(".").entries()) rr.writeUInt8(Number(octet), 12 + i);
      return rr;
    });
    socket.send(Buffer.concat([header, question, ...rrs]), rinfo.port, rinfo.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", () => resolve()));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    records: map,
    queries,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
