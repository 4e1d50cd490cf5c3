"""Training code: adapters between envzoo's faces and learning libraries (extra ``train``)."""
