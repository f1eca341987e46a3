// GET /v1/sandbox/emails: the email outbox for the dashboard, in sandbox mode only, where no mail
// leaves the machine and a seller needs to read verification, reset and invitation links somewhere.
// Signed-in users only (an organization token is for machines): their own mail, and the invitations
// sent to their organizations' members and invitees.
import { apiRouter, type Router } from "../../lib/api-router.ts";
import { z } from "zod";
import type { Db } from "../../../db/client.ts";
import { authOf, type Guard, sessionUserOf } from "../../lib/auth-context.ts";
import { ResourceNotFound } from "../../lib/errors.ts";
import { parseQuery } from "../../lib/validation.ts";
import { queryInt } from "../../lib/query.ts";
import { mailLinks } from "./links.ts";
import { listMailsVisibleTo } from "./repository.ts";

const emailListQuery = z.object({ limit: queryInt({ min: 1, max: 100 }).default(50) });

export function sandboxEmailsRouter(
  deps: { db: Db; mode: "sandbox" | "production"; authSecret: string },
  guard: Guard,
): Router {
  const links = mailLinks(deps.authSecret);
  const r = apiRouter();
  r.get(["/sandbox/emails", "/sandbox/emails/"], guard(), async (req, res) => {
    if (deps.mode !== "sandbox")
      throw new ResourceNotFound("The email outbox is only listed in sandbox mode.");
    const userId = sessionUserOf(
      authOf(req),
      "The email outbox is available to signed-in users only.",
    );
    const { limit } = parseQuery(emailListQuery, req);
    const rows = await listMailsVisibleTo(deps.db, userId, limit);
    res.json({
      items: rows
        .map((row) => ({ ...row, ...links.open(row) }))
        .map((m) => ({
          id: m.id,
          created_at: m.createdAt.toISOString(),
          kind: m.kind,
          to: m.to,
          subject: m.subject,
          text: m.text,
          link: m.link,
          sent_at: m.sentAt ? m.sentAt.toISOString() : null,
          error: m.error,
        })),
    });
  });
  return r;
}
