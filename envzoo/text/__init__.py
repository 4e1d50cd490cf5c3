"""Text environments for language-model agents: string observations and commands (Gymnasium
``Text`` spaces), admissible commands in ``info``, and a chat-message adapter (:mod:`.chat`)."""
