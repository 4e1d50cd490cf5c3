"""Serverless autoscaling: Knative services, the KPA, and an agent that sets concurrency limits."""
