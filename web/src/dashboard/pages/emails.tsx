// The sandbox email outbox: in sandbox mode no mail leaves the machine, so verification, reset and
// invitation links are read here.
import { useState } from "react";
import { useApi } from "../api.ts";
import type { OutboxMail } from "../types.ts";
import { Badge, Empty, PageHeader, Resource, when } from "../ui.tsx";

export function EmailsPage() {
  const mails = useApi<{ items: OutboxMail[] }>("/v1/sandbox/emails?limit=100");
  const [open, setOpen] = useState<string | null>(null);
  return (
    <>
      <PageHeader title="Email outbox">
        <button type="button" className="ghost" onClick={mails.reload}>
          Refresh
        </button>
      </PageHeader>
      <p className="muted">
        Sandbox mode: mail to you, your teammates and the people you invite is kept here instead of
        being sent.
      </p>
      <Resource loaded={mails} what="Emails">
        {(data) =>
          data.items.length === 0 ? (
            <Empty title="No emails yet">
              <p className="muted">
                Invite a teammate or request a password reset to see mail arrive.
              </p>
            </Empty>
          ) : (
            <ul className="mails">
              {data.items.map((m) => (
                <li key={m.id} className="card">
                  <button
                    type="button"
                    className="mail-head"
                    aria-expanded={open === m.id}
                    onClick={() => setOpen(open === m.id ? null : m.id)}
                  >
                    <Badge>{m.kind}</Badge>
                    <strong>{m.subject}</strong>
                    <span className="muted">to {m.to}</span>
                    <span className="muted right">{when(m.created_at)}</span>
                  </button>
                  {open === m.id ? (
                    <div className="stack">
                      <pre className="mail-body">{m.text}</pre>
                      {m.link ? (
                        <a href={m.link} className="button primary small">
                          Open the link
                        </a>
                      ) : null}
                    </div>
                  ) : null}
                </li>
              ))}
            </ul>
          )
        }
      </Resource>
    </>
  );
}
