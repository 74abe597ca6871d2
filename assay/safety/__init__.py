"""Handling secrets and untrusted input: encryption at rest (`crypto`), where outbound calls
may go (`outbound`), redaction of keys from logs and provider text (`redact`), stored sizes
(`caps`), spreadsheet-safe CSV cells (`csvcells`), and response headers and debug pages
(`headers`)."""
