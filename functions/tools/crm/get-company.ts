import { defineTool } from '../../runtime/spec';
import { createToolHandler } from '../../runtime/tool-handler';
import { crmGetCompanySpec } from './get-company.meta';
import { crmProvider } from './provider';

/** `crm_get_company` with its handler. */
export const crmGetCompanyTool = defineTool(crmGetCompanySpec, async (ctx, args) => {
  const provider = await crmProvider(ctx);
  const company = await provider.getCompany(args.company_id);
  return {
    value: { provider: provider.name, company },
    summary: `Company ${company.name ?? company.id}${company.domain ? ` (${company.domain})` : ''} from ${provider.name}`,
  };
});

/** Lambda entry of the tool's own function. */
export const handler = createToolHandler(crmGetCompanyTool);
