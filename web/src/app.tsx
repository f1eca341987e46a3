// The dashboard root: signed-out pages, then the organization (create one first if there is none),
// then the routed page inside the layout.
import { useEffect, type ReactNode } from "react";
import { authClient, OrgContext, type Org } from "./dashboard/auth.ts";
import { Layout } from "./dashboard/layout.tsx";
import {
  ForgotPassword,
  ResetPassword,
  SignIn,
  SignUp,
  Verified,
  VerifyEmail,
} from "./dashboard/pages/auth-pages.tsx";
import { AcceptInvitation, CreateOrganization } from "./dashboard/pages/organization.tsx";
import { routeFor } from "./dashboard/routes.tsx";
import { navigate, useLocation } from "./dashboard/router.ts";
import { Loading } from "./dashboard/ui.tsx";

const PUBLIC: Record<string, () => ReactNode> = {
  "/sign-in": () => <SignIn />,
  "/sign-up": () => <SignUp />,
  "/verify-email": () => <VerifyEmail />,
  "/verified": () => <Verified />,
  "/forgot-password": () => <ForgotPassword />,
  "/reset-password": () => <ResetPassword />,
};

function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}

function SignedIn({ email }: { email: string }) {
  const { path } = useLocation();
  const orgs = authClient.useListOrganizations();
  const active = authClient.useActiveOrganization();
  const list: Org[] = orgs.data ?? [];
  const current = list.find((o) => o.id === active.data?.id) ?? null;
  useEffect(() => {
    // A session starts without an active organization: pick the first so pages have one.
    if (!orgs.isPending && !active.isPending && !current && list[0])
      void authClient.organization.setActive({ organizationId: list[0].id });
  }, [orgs.isPending, active.isPending, current, list]);
  const invitation = /^\/accept-invitation\/([^/]+)$/.exec(path);
  if (invitation)
    return <main className="content">{<AcceptInvitation id={invitation[1]!} />}</main>;
  if (orgs.isPending || active.isPending) return <Loading what="Loading your organization" />;
  if (list.length === 0) return <CreateOrganization first />;
  if (!current) return <Loading what="Opening your organization" />;
  return (
    <OrgContext.Provider value={current}>
      <Layout org={current} orgs={list} email={email}>
        {/* key: a switch of organization starts every page afresh */}
        <div key={current.id}>{routeFor(path)}</div>
      </Layout>
    </OrgContext.Provider>
  );
}

export function App() {
  const { path } = useLocation();
  const session = authClient.useSession();
  if (session.isPending) return <Loading what="Loading" />;
  const publicPage = PUBLIC[path];
  if (!session.data) {
    if (publicPage) return <>{publicPage()}</>;
    return <Redirect to={`/sign-in${path === "/" ? "" : `?next=${encodeURIComponent(path)}`}`} />;
  }
  if (path === "/sign-in" || path === "/sign-up") return <Redirect to="/" />;
  if (publicPage) return <>{publicPage()}</>;
  return <SignedIn email={session.data.user.email} />;
}
