// Reads `Authorization: Bearer <token>` once per request. Resolving the token to a subject is the
// auth module's job and happens only on routes that need it, so public routes pay nothing.
import type { RequestHandler } from "express";

declare module "express-serve-static-core" {
  interface Request {
    bearer: string | null;
  }
}

const BEARER = /^Bearer[ \t]+([!-~]{1,4096})[ \t]*$/i;

export const bearerToken: RequestHandler = (req, _res, next) => {
  const header = req.headers.authorization;
  req.bearer = header ? (BEARER.exec(header)?.[1] ?? null) : null;
  next();
};
