// File: xml_query.h
// A document read back by libxml2's strict parsers (XML, or HTML), asked
// with XPath: how tests check what nodeprobe writes as JUnit or HTML.
#pragma once

#include <string>

struct _xmlDoc;

namespace nodeprobe::testing {

class XmlQuery {
 public:
  // XML: no recovery, no network; HTML: libxml2's HTML parser, no network.
  static XmlQuery Xml(const std::string& text);
  static XmlQuery Html(const std::string& text);
  ~XmlQuery();
  XmlQuery(XmlQuery&& other) noexcept : doc_(other.doc_) { other.doc_ = nullptr; }
  XmlQuery(const XmlQuery&) = delete;
  XmlQuery& operator=(const XmlQuery&) = delete;

  bool ok() const { return doc_ != nullptr; }
  // XPath's string() and number() of the expression (-1: no document).
  std::string String(const std::string& xpath) const;
  double Number(const std::string& xpath) const;

 private:
  explicit XmlQuery(_xmlDoc* doc) : doc_(doc) {}
  _xmlDoc* doc_;
};

}  // namespace nodeprobe::testing
