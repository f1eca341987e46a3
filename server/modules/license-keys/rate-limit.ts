// A fixed-window request limit per client IP for the public license key routes, kept in memory per
// process (each API process enforces its own window; behind N processes the effective limit is N×).
import type { Request, RequestHandler } from "express";
import { ApiError } from "../../lib/errors.ts";
import type { Clock } from "../../lib/clock.ts";

export function ipRateLimit(options: {
  perMinute: number;
  clock: Clock;
  trustProxy: boolean;
}): RequestHandler {
  const windows = new Map<string, { start: number; count: number }>();
  return (req, _res, next) => {
    const now = options.clock.now().getTime();
    const ip = clientIp(req, options.trustProxy);
    let w = windows.get(ip);
    if (!w || now - w.start >= 60_000) {
      if (windows.size > 10_000)
        for (const [k, v] of windows) if (now - v.start >= 60_000) windows.delete(k);
      w = { start: now, count: 0 };
      windows.set(ip, w);
    }
    w.count++;
    if (w.count > options.perMinute) {
      const retryAfter = Math.max(1, Math.ceil((w.start + 60_000 - now) / 1000));
      next(
        new ApiError(
          429,
          "TooManyRequests",
          "Too many license key requests from this address; try again later.",
          { "retry-after": String(retryAfter) },
        ),
      );
      return;
    }
    next();
  };
}

function clientIp(req: Request, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = req.headers["x-forwarded-for"];
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(",")[0]?.trim();
    if (first) return first;
  }
  return req.socket.remoteAddress ?? "unknown";
}
