import {
  gatewayCallOf,
  splitGatewayToolName,
} from '../../../functions/dispatcher/adapters/agentcore-gateway';
import { isBedrockAgentEvent } from '../../../functions/dispatcher/adapters/bedrock-agent';
import { canonicalJson, entryCallIdentity } from '../../../functions/dispatcher/adapters/call-identity';
import { isFunctionUrlEvent } from '../../../functions/dispatcher/adapters/mcp-function-url';
import { CALL_ID, isIdentifier, RUN_ID } from '../../../functions/runtime/ids';
import { bedrockApiEvent, bedrockFunctionEvent, gatewayContext } from '../../helpers/entry-point-events';
import { nativeEnvelope } from '../../helpers/events';

describe('recognizing each caller', () => {
  it('tells the Bedrock forms, a function URL request and the native envelope apart', () => {
    expect(isBedrockAgentEvent(bedrockFunctionEvent('finish', { summary: 'x' }))).toBe(true);
    expect(isBedrockAgentEvent(bedrockApiEvent('finish', { summary: 'x' }))).toBe(true);
    expect(isBedrockAgentEvent(nativeEnvelope())).toBe(false);
    expect(
      isBedrockAgentEvent({ ...bedrockFunctionEvent('finish', {}), parameters: [{ name: 'a', value: 1 }] }),
    ).toBe(false);
    expect(isFunctionUrlEvent(nativeEnvelope())).toBe(false);
    expect(
      isFunctionUrlEvent({ version: '2.0', rawPath: '/mcp', requestContext: { http: { method: 'POST' } } }),
    ).toBe(true);
  });

  it('reads a Gateway call from the client context (custom, or Custom as @types/aws-lambda spells it)', () => {
    // Prepare
    const context = gatewayContext('etp-tools___aws_ec2_inventory', 'req-1');
    const custom = (context.clientContext as unknown as { custom: Record<string, string> }).custom;

    // Act
    const call = gatewayCallOf(context);
    const capitalized = gatewayCallOf({ clientContext: { Custom: custom } as never });

    // Assess
    expect(call).toEqual({
      qualifiedToolName: 'etp-tools___aws_ec2_inventory',
      gatewayId: 'etp-gateway-abcdefghij',
      targetId: 'TARGET0001',
      awsRequestId: 'req-1',
      mcpMessageId: '2',
    });
    expect(capitalized).toEqual(call);
    expect(gatewayCallOf({ clientContext: undefined })).toBeUndefined();
    expect(gatewayCallOf({ clientContext: { custom: { other: 'x' } } as never })).toBeUndefined();
  });
});

describe('the Gateway tool name', () => {
  it('strips the bound target whose prefix it carries, the longest first, whatever underscores the names hold', () => {
    const targets = ['etp', 'etp_tools_', 'ops'];
    expect(splitGatewayToolName('etp_tools____aws_ec2_inventory', targets)).toEqual({
      target: 'etp_tools_',
      tool: 'aws_ec2_inventory',
    });
    expect(splitGatewayToolName('etp___slack_post_message', targets)).toEqual({
      target: 'etp',
      tool: 'slack_post_message',
    });
    expect(splitGatewayToolName('other___slack_post_message', targets)).toBeUndefined();
    expect(splitGatewayToolName('slack_post_message', targets)).toBeUndefined();
  });
});

describe('call identity of calls without a run', () => {
  it('is a valid run id and call id, stable for the same keys and distinct for another call', () => {
    // Act
    const first = entryCallIdentity('bedrock', 'agent\nsession', 'call-1');
    const again = entryCallIdentity('bedrock', 'agent\nsession', 'call-1');
    const other = entryCallIdentity('bedrock', 'agent\nsession', 'call-2');

    // Assess
    expect(isIdentifier(RUN_ID, first.runId)).toBe(true);
    expect(isIdentifier(CALL_ID, first.callId)).toBe(true);
    expect(again).toEqual(first);
    expect(other.runId).not.toBe(first.runId);
    expect(other.runId.slice(0, 20)).toBe(first.runId.slice(0, 20));
  });

  it('keys equal arguments equally whatever their key order', () => {
    expect(canonicalJson({ b: [1, { y: 2, x: 1 }], a: 'z' })).toBe(
      canonicalJson({ a: 'z', b: [1, { x: 1, y: 2 }] }),
    );
  });
});
