"""ToolUse-v0: tasks over simulated in-process services, acted on with JSON tool calls."""
