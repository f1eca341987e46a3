// A test server with one instance administrator (TILL_ADMIN_EMAILS), signed up and ready.
import { signUp, type TestUser } from "./auth.ts";
import { uniqueEmail } from "./browser.ts";
import { startTestServer, type TestServer } from "./server.ts";

export async function serverWithAdmin(): Promise<{ t: TestServer; admin: TestUser }> {
  const adminEmail = uniqueEmail("admin");
  const t = await startTestServer({ env: { TILL_ADMIN_EMAILS: adminEmail } });
  return { t, admin: await signUp(t.url, { email: adminEmail }) };
}
