// Gives every request an id (taken from X-Request-Id when it is sane, otherwise new), a child logger
// that stamps it on every line, and one access-log line when the response finishes.
import { randomUUID } from "node:crypto";
import type { RequestHandler } from "express";
import type { Logger } from "./logger.ts";

declare module "express-serve-static-core" {
  interface Request {
    id: string;
    log: Logger;
  }
}

const SAFE_ID = /^[\w.:-]{1,128}$/;

export function requestContext(log: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.headers["x-request-id"];
    const id = typeof incoming === "string" && SAFE_ID.test(incoming) ? incoming : randomUUID();
    const start = process.hrtime.bigint();
    req.id = id;
    req.log = log.child({ reqId: id });
    res.setHeader("x-request-id", id);
    res.once("finish", () => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      req.log.info(
        {
          method: req.method,
          url: req.originalUrl,
          status: res.statusCode,
          ms: Math.round(ms * 100) / 100,
        },
        "request",
      );
    });
    next();
  };
}
