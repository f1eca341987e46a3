// The API's routers each serve a few top-level paths (/checkouts, /products, ...). Mounted one
// after another, every request walked every route of every router before its own: path matching
// took more CPU than some handlers. This dispatches on the first path segment instead, to the
// routers with a route under it, in their mounting order. Where a router serves is what
// apiRouter() recorded as its routes were added; a router that may answer any path (middleware
// for every path, a pattern in the first segment, a plain express Router) sees every request.
import type { NextFunction, Request, RequestHandler, Response, Router } from "express";
import { EVERY, segmentsOf } from "./api-router.ts";

function firstSegment(path: string): string {
  const end = path.indexOf("/", 1);
  return (end === -1 ? path.slice(1) : path.slice(1, end)).toLowerCase();
}

/**
 * One handler over `routers`: a request is handed to the routers serving its first path segment
 * (matched without case, as Express matches), in order, until one answers. Read when called, so
 * routes must be added to the routers before.
 */
export function segmentRouter(routers: Router[]): RequestHandler {
  const served = routers.map(segmentsOf);
  const every = routers.filter((_, i) => served[i] === EVERY);
  const bySegment = new Map<string, Router[]>();
  for (const s of new Set(served.flatMap((x) => (x === EVERY ? [] : [...x])))) {
    bySegment.set(
      s,
      routers.filter((_, i) => served[i] === EVERY || (served[i] as Set<string>).has(s)),
    );
  }
  return (req: Request, res: Response, next: NextFunction) => {
    const list = bySegment.get(firstSegment(req.path)) ?? every;
    let i = 0;
    const step = (err?: unknown): void => {
      // A router that did not answer calls back with nothing (or null after next("router")).
      if (err !== undefined && err !== null && err !== "router") {
        next(err);
        return;
      }
      const router = list[i++];
      if (router) router(req, res, step);
      else next();
    };
    step();
  };
}
