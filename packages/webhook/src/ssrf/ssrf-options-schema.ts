import ipaddr from 'ipaddr.js';
import { optionsAjv } from '../sender/option-validator';
import { normaliseAllowedHost } from './host-pattern';

// ipaddr.js alone would also take `10/8` or `0xa.0.0.0/8`; an allow-list is read by people,
// so IPv4 is accepted in its dotted four-part form only.
optionsAjv.addFormat(
  'cidr',
  (text: string) => ipaddr.IPv4.isValidCIDRFourPartDecimal(text) || ipaddr.IPv6.isValidCIDR(text),
);
optionsAjv.addFormat('allowed-host', (text: string) => normaliseAllowedHost(text) !== undefined);

const flag = { type: 'boolean' } as const;

export const addressPolicyOptionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    allowLoopback: flag,
    allowPrivateCidrs: {
      type: 'array',
      items: {
        type: 'string',
        format: 'cidr',
        refusal: 'is not a CIDR (e.g. 10.20.0.0/16 or fd00:1::/32)',
      },
    },
  },
} as const;

export const urlPolicyOptionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...addressPolicyOptionsSchema.properties,
    allowHttp: flag,
    allowedHosts: {
      type: 'array',
      items: {
        type: 'string',
        maxLength: 300,
        format: 'allowed-host',
        refusal: 'is not a host name, an IP address or *.domain that a URL could have',
      },
    },
  },
} as const;
