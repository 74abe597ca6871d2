"""What an item is made of: content objects and the converters that check cells
(`content`), a record turned into a checked row (`rows`), and media files in storage
(`media`)."""
