/**
 * The ATS endpoints the tools call and what each needs, per provider:
 * `greenhouse`, the Harvest API key permissions, named per endpoint as the key's
 * settings show them ("Harvest API key permissions": `GET: List Candidates`), and
 * `lever`, the API key's or OAuth app's scopes in Lever's
 * `<resource>:<action>:admin` grammar ("Lever Data API", "OAuth Scopes").
 */
import type { ScopeTable } from '../../runtime/http/scopes';

const HARVEST = 'https://developers.greenhouse.io/harvest.html';
const LEVER = 'https://hire.lever.co/developer/documentation';

export const GREENHOUSE_SCOPES: ScopeTable = [
  {
    method: 'GET',
    path: '/v1/candidates',
    needs: { greenhouse: ['GET: List Candidates'] },
    source: `${HARVEST}#get-list-candidates`,
  },
  {
    method: 'GET',
    path: '/v1/candidates/{id}',
    needs: { greenhouse: ['GET: Retrieve Candidate'] },
    source: `${HARVEST}#get-retrieve-candidate`,
  },
  {
    method: 'GET',
    path: '/v1/candidates/{id}/activity_feed',
    needs: { greenhouse: ['GET: Retrieve Activity Feed'] },
    source: `${HARVEST}#get-retrieve-activity-feed`,
  },
  {
    method: 'POST',
    path: '/v1/candidates/{id}/activity_feed/notes',
    needs: { greenhouse: ['POST: Add Note'] },
    source: `${HARVEST}#post-add-note`,
  },
];

export const LEVER_SCOPES: ScopeTable = [
  {
    method: 'GET',
    path: '/v1/stages',
    needs: { lever: ['stages:read:admin'] },
    source: `${LEVER}#list-all-stages`,
  },
  {
    method: 'GET',
    path: '/v1/opportunities',
    needs: { lever: ['opportunities:read:admin'] },
    source: `${LEVER}#list-all-opportunities`,
  },
  {
    method: 'GET',
    path: '/v1/opportunities/{id}',
    needs: { lever: ['opportunities:read:admin'] },
    source: `${LEVER}#retrieve-a-single-opportunity`,
  },
  {
    method: 'GET',
    path: '/v1/opportunities/{id}/notes',
    needs: { lever: ['notes:read:admin'] },
    source: `${LEVER}#list-all-notes`,
  },
  {
    method: 'POST',
    path: '/v1/opportunities/{id}/notes',
    needs: { lever: ['notes:write:admin'] },
    source: `${LEVER}#create-a-note`,
  },
];
