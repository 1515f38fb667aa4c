/**
 * The CRM endpoints the tools call and the token scopes each needs, per
 * provider: `hubspot`, a private app's scopes (each endpoint's "Scope
 * requirements"; notes take the scopes of the contacts they are on, "Activities |
 * Notes"), and `attio`, an access token's scopes ("Scopes" of the Attio REST API
 * reference: `record_permission:read`, `object_configuration:read`…).
 */
import type { ScopeTable } from '../../runtime/http/scopes';

const HUBSPOT = 'https://developers.hubspot.com/docs/api-reference';
const ATTIO = 'https://docs.attio.com/rest-api/endpoint-reference';

export const HUBSPOT_SCOPES: ScopeTable = [
  {
    method: 'POST',
    path: '/crm/v3/objects/contacts/search',
    needs: { hubspot: ['crm.objects.contacts.read'] },
    source: `${HUBSPOT}/crm-contacts-v3 (Search contacts)`,
  },
  {
    method: 'GET',
    path: '/crm/v3/objects/contacts/{id}',
    needs: { hubspot: ['crm.objects.contacts.read'] },
    source: `${HUBSPOT}/crm-contacts-v3 (Retrieve a contact)`,
  },
  {
    method: 'PATCH',
    path: '/crm/v3/objects/contacts/{id}',
    needs: { hubspot: ['crm.objects.contacts.write'] },
    source: `${HUBSPOT}/crm-contacts-v3 (Update a contact)`,
  },
  {
    method: 'GET',
    path: '/crm/v3/objects/companies/{id}',
    needs: { hubspot: ['crm.objects.companies.read'] },
    source: `${HUBSPOT}/crm-companies-v3 (Retrieve a company)`,
  },
  {
    method: 'POST',
    path: '/crm/v3/objects/notes',
    needs: { hubspot: ['crm.objects.contacts.write'] },
    source: `${HUBSPOT}/crm-notes-v3 (Create a note)`,
  },
  {
    method: 'POST',
    path: '/crm/v3/objects/notes/batch/read',
    needs: { hubspot: ['crm.objects.contacts.read'] },
    source: `${HUBSPOT}/crm-notes-v3 (Read a batch of notes)`,
  },
];

export const ATTIO_SCOPES: ScopeTable = [
  {
    method: 'POST',
    path: '/v2/objects/people/records/query',
    needs: { attio: ['record_permission:read', 'object_configuration:read'] },
    source: `${ATTIO}/records/list-records`,
  },
  {
    method: 'GET',
    path: '/v2/objects/people/records/{id}',
    needs: { attio: ['record_permission:read', 'object_configuration:read'] },
    source: `${ATTIO}/records/get-a-record`,
  },
  {
    method: 'PATCH',
    path: '/v2/objects/people/records/{id}',
    needs: { attio: ['record_permission:read-write', 'object_configuration:read'] },
    source: `${ATTIO}/records/update-a-record-append-multiselect-values`,
  },
  {
    method: 'GET',
    path: '/v2/objects/companies/records/{id}',
    needs: { attio: ['record_permission:read', 'object_configuration:read'] },
    source: `${ATTIO}/records/get-a-record`,
  },
  {
    method: 'POST',
    path: '/v2/notes',
    needs: { attio: ['note:read-write', 'object_configuration:read', 'record_permission:read'] },
    source: `${ATTIO}/notes/create-a-note`,
  },
  {
    method: 'GET',
    path: '/v2/notes',
    needs: { attio: ['note:read', 'object_configuration:read', 'record_permission:read'] },
    source: `${ATTIO}/notes/list-notes`,
  },
];
