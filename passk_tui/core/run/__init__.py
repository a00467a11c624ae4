"""The run machinery: cases, settings, attempts, the Target protocol, the policy, the pool, the engine."""
