// Organizations: creating one (also the first step after sign-up), members and invitations, and
// accepting an invitation from its emailed link.
import { useEffect, useState } from "react";
import { authClient, unwrap, useOrg } from "../auth.ts";
import { navigate } from "../router.ts";
import {
  Badge,
  Empty,
  ErrorNote,
  Field,
  Loading,
  PageHeader,
  submit,
  useAction,
  when,
} from "../ui.tsx";

function slugify(name: string): string {
  return (
    name
      .toLowerCase()
      .normalize("NFKD")
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "")
      .slice(0, 40) || "org"
  );
}

export function CreateOrganization({ first }: { first: boolean }) {
  const action = useAction();
  const [name, setName] = useState("");
  const onSubmit = submit((data) =>
    action.run(async () => {
      const org = await unwrap(
        authClient.organization.create({
          name: String(data.get("name")),
          slug: String(data.get("slug")),
        }),
      );
      await unwrap(authClient.organization.setActive({ organizationId: org!.id }));
      navigate("/products", { replace: true });
    }),
  );
  return (
    <div className={first ? "auth" : ""}>
      <form
        className={first ? "auth-card stack" : "card stack narrow"}
        onSubmit={onSubmit}
        aria-label="New organization"
      >
        <h1>{first ? "Create your organization" : "New organization"}</h1>
        <p className="muted">
          An organization holds your products, customers and API tokens. You can invite your team
          later.
        </p>
        <label className="field">
          <span>Name</span>
          <input
            name="name"
            required
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder="Acme Inc."
          />
        </label>
        <label className="field">
          <span>Slug</span>
          <input
            name="slug"
            required
            pattern="[a-z0-9][a-z0-9-]*"
            value={slugify(name)}
            readOnly
            aria-describedby="slug-help"
          />
          <small id="slug-help" className="muted">
            Used in URLs; made from the name.
          </small>
        </label>
        <ErrorNote error={action.error} />
        <button type="submit" className="primary wide" disabled={action.busy || !name.trim()}>
          {action.busy ? "Creating…" : "Create organization"}
        </button>
      </form>
    </div>
  );
}

interface FullOrg {
  members: {
    id: string;
    role: string;
    createdAt: string | Date;
    user: { name: string; email: string };
  }[];
  invitations: {
    id: string;
    email: string;
    role: string;
    status: string;
    expiresAt: string | Date;
  }[];
  teams?: { id: string; name: string; createdAt: string | Date }[];
}

export function useFullOrganization(orgId: string) {
  const [org, setOrg] = useState<FullOrg | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new tick (reload()) fetches again
  useEffect(() => {
    unwrap(authClient.organization.getFullOrganization({ query: { organizationId: orgId } })).then(
      (o) => setOrg(o as unknown as FullOrg),
      (e: Error) => setError(e.message),
    );
  }, [orgId, tick]);
  return { org, error, reload: () => setTick((n) => n + 1) };
}

export function MembersPage() {
  const current = useOrg();
  const { org, error, reload } = useFullOrganization(current.id);
  const action = useAction();
  const invite = submit((data, form) =>
    action.run(async () => {
      await unwrap(
        authClient.organization.inviteMember({
          email: String(data.get("email")),
          role: String(data.get("role")) as "member",
          organizationId: current.id,
        }),
      );
      form.reset();
      reload();
    }),
  );
  if (error) return <ErrorNote error={error} />;
  if (!org) return <Loading what="Loading members" />;
  const pending = org.invitations.filter((i) => i.status === "pending");
  return (
    <>
      <PageHeader title="Members" />
      <table className="table">
        <thead>
          <tr>
            <th>Name</th>
            <th>Email</th>
            <th>Role</th>
            <th>Joined</th>
            <th>
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {org.members.map((m) => (
            <tr key={m.id}>
              <td>{m.user.name}</td>
              <td>{m.user.email}</td>
              <td>
                <Badge>{m.role}</Badge>
              </td>
              <td className="muted">{when(new Date(m.createdAt).toISOString())}</td>
              <td className="right">
                {m.role !== "owner" ? (
                  <button
                    type="button"
                    className="ghost small"
                    onClick={() =>
                      void action.run(async () => {
                        await unwrap(
                          authClient.organization.removeMember({
                            memberIdOrEmail: m.id,
                            organizationId: current.id,
                          }),
                        );
                        return reload();
                      })
                    }
                  >
                    Remove
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form className="card row" onSubmit={invite} aria-label="Invite a member">
        <Field
          label="Invite by email"
          name="email"
          type="email"
          required
          placeholder="teammate@example.com"
        />
        <label className="field">
          <span>Role</span>
          <select name="role" defaultValue="member">
            <option value="member">Member</option>
            <option value="admin">Admin</option>
            <option value="owner">Owner</option>
          </select>
        </label>
        <button type="submit" className="primary" disabled={action.busy}>
          Send invitation
        </button>
      </form>
      <ErrorNote error={action.error} />
      <h2>Pending invitations</h2>
      {pending.length === 0 ? (
        <Empty title="No pending invitations">
          <p className="muted">Invite a teammate above; they get an email with a link to join.</p>
        </Empty>
      ) : (
        <ul className="list card">
          {pending.map((i) => (
            <li key={i.id}>
              {i.email} <Badge>{i.role}</Badge>{" "}
              <span className="muted">expires {when(new Date(i.expiresAt).toISOString())}</span>
              <button
                type="button"
                className="ghost small"
                onClick={() =>
                  void action.run(async () => {
                    await unwrap(authClient.organization.cancelInvitation({ invitationId: i.id }));
                    return reload();
                  })
                }
              >
                Cancel
              </button>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

export function AcceptInvitation({ id }: { id: string }) {
  const action = useAction();
  const accept = () =>
    action.run(async () => {
      const result = await unwrap(authClient.organization.acceptInvitation({ invitationId: id }));
      if (result?.invitation)
        await unwrap(
          authClient.organization.setActive({ organizationId: result.invitation.organizationId }),
        );
      navigate("/", { replace: true });
    });
  return (
    <div className="card stack narrow">
      <h1>Join an organization</h1>
      <p>
        You were invited to an organization on till. Accept to see its products, customers and
        sales.
      </p>
      <ErrorNote error={action.error} />
      <div className="actions">
        <button
          type="button"
          className="primary"
          onClick={() => void accept()}
          disabled={action.busy}
        >
          Accept invitation
        </button>
        <button
          type="button"
          className="ghost"
          onClick={() =>
            void action.run(async () => {
              await unwrap(authClient.organization.rejectInvitation({ invitationId: id }));
              navigate("/");
            })
          }
        >
          Decline
        </button>
      </div>
    </div>
  );
}
