// The API's routers each serve a few top-level paths (/checkouts, /products, ...). Mounted one
// after another, every request walked every route of every router before its own: path matching
// took more CPU than some handlers. This dispatches on the first path segment instead, to the
// routers with a route under it, in their mounting order. A router whose stack cannot be read that
// way (middleware for every path, a pattern in the first segment) sees every request, as before.
import type { NextFunction, Request, RequestHandler, Response, Router } from "express";

interface LayerLike {
  rawPath?: unknown;
  route?: unknown;
  handle?: { stack?: unknown };
}

const EVERY = Symbol("every segment");

/** The first segments a router's routes live under, or EVERY when that cannot be told. */
function segmentsOf(router: Router): Set<string> | typeof EVERY {
  const stack = (router as unknown as { stack?: LayerLike[] }).stack;
  if (!Array.isArray(stack)) return EVERY;
  const out = new Set<string>();
  for (const layer of stack) {
    const paths = Array.isArray(layer.rawPath) ? layer.rawPath : [layer.rawPath];
    for (const p of paths) {
      if (typeof p !== "string") return EVERY;
      const segment = p.split("/")[1] ?? "";
      if (segment === "" && !layer.route && Array.isArray(layer.handle?.stack)) {
        // A router used without a path: its own routes say where it serves.
        const inner = segmentsOf(layer.handle as unknown as Router);
        if (inner === EVERY) return EVERY;
        for (const s of inner) out.add(s);
        continue;
      }
      if (segment === "" || /[:*?(){}\\]/.test(segment)) return EVERY;
      out.add(segment.toLowerCase());
    }
  }
  return out;
}

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
