// /v1/customer-sessions
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { authOf, type Guard } from "../../lib/auth-context.ts";
import { parseBody } from "../../lib/validation.ts";
import { customerSessionCreate } from "./schemas.ts";
import * as service from "./service.ts";

export function customerSessionsRouter(deps: service.CustomerSessionDeps, guard: Guard): Router {
  const r = apiRouter();
  r.post(
    ["/customer-sessions", "/customer-sessions/"],
    guard("customer_sessions:write"),
    async (req, res) => {
      res
        .status(201)
        .json(
          await service.createCustomerSession(
            deps,
            authOf(req),
            parseBody(customerSessionCreate, req),
          ),
        );
    },
  );
  return r;
}
