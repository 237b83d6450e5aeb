/** The environment contract of the agent: what every rented instance is started with. */
export const agentEnvNames = {
  url: "CUZKIT_FLEET_URL",
  token: "CUZKIT_FLEET_TOKEN",
  instanceId: "CUZKIT_INSTANCE_ID",
} as const;
