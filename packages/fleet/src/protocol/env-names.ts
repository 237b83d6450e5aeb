/** The environment contract of the agent: what every rented instance is started with. */
export const agentEnvNames = {
  url: "CUZKIT_FLEET_URL",
  token: "CUZKIT_FLEET_TOKEN",
  instanceId: "CUZKIT_INSTANCE_ID",
} as const;

/**
 * Curio's environment variable for `curio run --name` (cmd/curio/run.go: the `name` flag's
 * EnvVars), which Curio stores as harmony_machine_details.machine_name. The agent sets it for
 * `--serve-command` to the name the manager gave at register.
 */
export const curioNodeNameEnv = "CURIO_NODE_NAME";
