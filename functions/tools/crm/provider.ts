/**
 * The tenant's CRM provider: `crm_default` names it (`provider`), and the
 * provider's module maps the family's shape to its API.
 */
import type { ToolContext } from '../../runtime/context';
import type { SessionOptions } from '../../runtime/http/connector';
import { attio, attioProvider } from './attio';
import type { CrmProvider } from './family';
import { hubspot, hubspotProvider } from './hubspot';
import { CRM_SECRET_FAMILY } from './secret';

/**
 * The provider for one call, chosen by the tenant's secret.
 *
 * @param options - the session's settings (a write's shorter attempts, `writeAttemptTimeoutMs`).
 * @throws SecretInvalidError | SecretNotFoundError from reading `crm_default`.
 */
export async function crmProvider(ctx: ToolContext, options: SessionOptions = {}): Promise<CrmProvider> {
  const secret = await CRM_SECRET_FAMILY.read(ctx);
  return secret.provider === 'hubspot'
    ? hubspotProvider(ctx, hubspot.session(ctx, options))
    : attioProvider(ctx, attio.session(ctx, options));
}
