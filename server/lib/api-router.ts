// Routers for the /v1 API that remember the paths they were given, so the segment dispatch
// (segment-router.ts) knows where each one serves from the routes themselves, through Express's
// public methods only. A router made with express's own Router() is not known here and is
// handed every request, which is correct, only slower.
import { type RequestHandler, Router } from "express";

/** A router's first path segments, or EVERY when it may answer any path. */
export const EVERY = Symbol("every segment");
export type Segments = Set<string> | typeof EVERY;

const known = new WeakMap<object, { segments: Segments }>();

/** Every method and path the API routers of this process were given, for the route-table tests. */
const routes = new Set<string>();
export function recordedRoutes(): string[] {
  return [...routes];
}

const VERBS = new Set(["get", "post", "put", "patch", "delete"]);

const METHODS = ["all", "get", "post", "put", "patch", "delete", "head", "options", "route"];

function segmentsOfPath(p: unknown): Segments {
  const paths = Array.isArray(p) ? p : [p];
  const out = new Set<string>();
  for (const path of paths) {
    if (typeof path !== "string") return EVERY;
    const segment = path.split("/")[1] ?? "";
    if (segment === "" || /[:*?(){}\\]/.test(segment)) return EVERY;
    out.add(segment.toLowerCase());
  }
  return out;
}

function add(into: { segments: Segments }, more: Segments): void {
  if (into.segments === EVERY) return;
  if (more === EVERY) into.segments = EVERY;
  else for (const s of more) into.segments.add(s);
}

/** Where a router made by apiRouter() serves; EVERY for any other handler. */
export function segmentsOf(handler: unknown): Segments {
  if (typeof handler !== "function") return EVERY;
  return known.get(handler)?.segments ?? EVERY;
}

/** express.Router() whose route and use paths are recorded as they are added. */
export function apiRouter(): Router {
  const router = Router();
  const entry: { segments: Segments } = { segments: new Set() };
  known.set(router, entry);
  const target = router as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const method of METHODS) {
    const original = target[method]!.bind(router);
    target[method] = (path: unknown, ...rest: unknown[]) => {
      add(entry, segmentsOfPath(path));
      if (VERBS.has(method))
        for (const p of Array.isArray(path) ? path : [path])
          if (typeof p === "string") routes.add(`${method.toUpperCase()} ${p}`);
      return original(path, ...rest);
    };
  }
  const use = router.use.bind(router) as (...args: unknown[]) => Router;
  target.use = (...args: unknown[]) => {
    const first = args[0];
    if (typeof first === "string" || Array.isArray(first)) add(entry, segmentsOfPath(first));
    // Used without a path: the handlers' own paths say where (any other middleware sees all).
    else for (const handler of args.flat()) add(entry, segmentsOf(handler as RequestHandler));
    return use(...args);
  };
  return router;
}

export type { Router };
