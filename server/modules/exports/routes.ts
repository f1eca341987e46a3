// GET /v1/{customers,orders,subscriptions}/export: CSV files. Mounted before the resources' own
// routers so that the literal `export` wins over their `/:id` routes.
import { pipeline } from "node:stream/promises";
import type { Writable } from "node:stream";
import { createGzip } from "node:zlib";
import type { Request, Response } from "express";
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { authOf, type Guard } from "../../lib/auth-context.ts";
import { parseQuery } from "../../lib/validation.ts";
import { customerExportQuery, orderExportQuery, subscriptionExportQuery } from "./schemas.ts";
import * as service from "./service.ts";

/**
 * Streams the file, gzipped at level 1 when the client takes gzip: a CSV shrinks about as much as
 * at the default level 6, for a fraction of the CPU (at level 6 compressing cost more than reading
 * the rows). Set here, the shared compression middleware leaves the answer alone.
 */
async function send(req: Request, res: Response, csv: service.CsvExport): Promise<void> {
  res.status(200);
  res.setHeader("Content-Type", "text/csv; charset=utf-8");
  res.setHeader("Content-Disposition", `attachment; filename=${csv.filename}`);
  res.setHeader("Vary", "Accept-Encoding");
  let out: Writable = res;
  if (req.acceptsEncodings("gzip", "identity") === "gzip") {
    res.setHeader("Content-Encoding", "gzip");
    const gzip = createGzip({ level: 1 });
    // A client gone mid-file destroys the gzip stream too, which ends writeCsv.
    pipeline(gzip, res).catch(() => {});
    out = gzip;
  }
  try {
    await service.writeCsv(out, csv);
    out.end();
  } catch (err) {
    // The status line is gone: cutting the connection is the only way to say the file is partial.
    req.log.error({ err }, "export failed mid-stream");
    res.destroy();
  }
}

export function exportsRouter(deps: service.ExportDeps, guard: Guard): Router {
  const r = apiRouter();
  r.get("/customers/export", guard("customers:read", "customers:write"), async (req, res) => {
    const csv = service.customersCsv(deps, authOf(req), parseQuery(customerExportQuery, req));
    await send(req, res, csv);
  });
  r.get("/orders/export", guard("orders:read"), async (req, res) => {
    const csv = service.ordersCsv(deps, authOf(req), parseQuery(orderExportQuery, req));
    await send(req, res, csv);
  });
  r.get(
    "/subscriptions/export",
    guard("subscriptions:read", "subscriptions:write"),
    async (req, res) => {
      const query = parseQuery(subscriptionExportQuery, req);
      await send(req, res, service.subscriptionsCsv(deps, authOf(req), query));
    },
  );
  return r;
}
