#include "platform/dcbnl.h"

#include <linux/dcbnl.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <sys/socket.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "platform/netlink_request.h"

namespace nodeprobe::platform {
namespace {

absl::Status KernelError(const std::string& ifname, int err) {
  switch (err) {
    case EOPNOTSUPP:
      return absl::UnimplementedError(
          absl::StrCat(ifname,
                       ": its driver has no dcbnl (no DCB through the kernel): PFC, ETS and the "
                       "DSCP map cannot be read from the host"));
    case ENODEV:
      return absl::NotFoundError(absl::StrCat("no interface '", ifname, "' in this namespace"));
    case EPERM:
    case EACCES:
      return absl::PermissionDeniedError(
          absl::StrCat(ifname, ": reading DCB was refused (", strerror(err), ")"));
    default:
      return absl::ErrnoToStatus(err, absl::StrCat(ifname, ": dcbnl"));
  }
}

// The reply as an aligned, length-checked netlink message.
absl::StatusOr<std::vector<uint32_t>> CheckedMessage(const std::string& ifname,
                                                     const std::string& raw) {
  if (raw.size() < NLMSG_HDRLEN) {
    return absl::DataLossError(absl::StrCat(ifname, ": dcbnl reply of ", raw.size(), " bytes"));
  }
  std::vector<uint32_t> buf((raw.size() + 3) / 4);
  raw.copy(reinterpret_cast<char*>(buf.data()), raw.size());
  const auto* hdr = reinterpret_cast<const nlmsghdr*>(buf.data());
  if (hdr->nlmsg_len < NLMSG_HDRLEN || hdr->nlmsg_len > raw.size()) {
    return absl::DataLossError(absl::StrCat(ifname, ": dcbnl reply says ", hdr->nlmsg_len,
                                            " bytes but holds ", raw.size()));
  }
  if (hdr->nlmsg_type == NLMSG_ERROR) {
    if (hdr->nlmsg_len < NLMSG_LENGTH(sizeof(nlmsgerr))) {
      return absl::DataLossError(absl::StrCat(ifname, ": short netlink error reply"));
    }
    const auto* e = static_cast<const nlmsgerr*>(NLMSG_DATA(hdr));
    // error 0 is an acknowledgement, not an answer (and would read as OK).
    if (e->error >= 0 || e->error == INT_MIN) {
      return absl::DataLossError(
          absl::StrCat(ifname, ": netlink acknowledged (", e->error, ") instead of answering"));
    }
    return KernelError(ifname, -e->error);
  }
  if (hdr->nlmsg_type != RTM_GETDCB || hdr->nlmsg_len < NLMSG_LENGTH(NLMSG_ALIGN(sizeof(dcbmsg)))) {
    return absl::DataLossError(
        absl::StrCat(ifname, ": not a dcbnl reply (netlink type ", hdr->nlmsg_type, ")"));
  }
  // One request, one answer: a second message after it (concatenated
  // replies) leaves which one is this interface's unknown.
  if (raw.size() >= NLMSG_ALIGN(hdr->nlmsg_len) + NLMSG_HDRLEN) {
    return absl::DataLossError(absl::StrCat(ifname, ": the dcbnl reply holds more than one "
                                                    "message (",
                                            raw.size(), " bytes, the first ", hdr->nlmsg_len,
                                            ")"));
  }
  return buf;
}

template <size_t N>
void CopyArray(const uint8_t (&from)[N], std::array<uint8_t, 8>* to) {
  static_assert(N == 8, "IEEE 802.1Qaz has eight traffic classes");
  std::copy(from, from + N, to->begin());
}

void ReadIeee(nlattr* ieee, DcbState* s) {
  nlattr* tb[DCB_ATTR_IEEE_MAX + 1] = {};
  if (nla_parse_nested(tb, DCB_ATTR_IEEE_MAX, ieee, nullptr) < 0) return;
  if (tb[DCB_ATTR_IEEE_PFC] && nla_len(tb[DCB_ATTR_IEEE_PFC]) >= int(sizeof(ieee_pfc))) {
    ieee_pfc pfc;
    memcpy(&pfc, nla_data(tb[DCB_ATTR_IEEE_PFC]), sizeof(pfc));
    s->has_pfc = true;
    s->pfc_cap = pfc.pfc_cap;
    s->pfc_enabled = pfc.pfc_en;
    s->pfc_delay = pfc.delay;
    std::copy(pfc.requests, pfc.requests + 8, s->pfc_requests.begin());
    std::copy(pfc.indications, pfc.indications + 8, s->pfc_indications.begin());
  }
  if (tb[DCB_ATTR_IEEE_ETS] && nla_len(tb[DCB_ATTR_IEEE_ETS]) >= int(sizeof(ieee_ets))) {
    ieee_ets ets;
    memcpy(&ets, nla_data(tb[DCB_ATTR_IEEE_ETS]), sizeof(ets));
    s->has_ets = true;
    CopyArray(ets.prio_tc, &s->prio_tc);
    CopyArray(ets.tc_tx_bw, &s->tc_tx_bw);
    CopyArray(ets.tc_tsa, &s->tc_tsa);
  }
  if (tb[DCB_ATTR_IEEE_APP_TABLE]) {
    nlattr* app;
    int rem;
    nla_for_each_nested(app, tb[DCB_ATTR_IEEE_APP_TABLE], rem) {
      if (nla_type(app) != DCB_ATTR_IEEE_APP || nla_len(app) < int(sizeof(dcb_app))) continue;
      dcb_app a;
      memcpy(&a, nla_data(app), sizeof(a));
      if (a.selector == IEEE_8021QAZ_APP_SEL_DSCP && a.protocol < 64 && a.priority < 8) {
        s->dscp_prio[a.protocol].push_back(a.priority);
      } else {
        ++s->other_apps;
      }
    }
  }
}

// Reads what one reply carries into `s` (both replies may carry DCBX).
absl::Status ReadReply(const std::string& ifname, const std::string& raw, DcbState* s) {
  absl::StatusOr<std::vector<uint32_t>> buf = CheckedMessage(ifname, raw);
  if (!buf.ok()) return buf.status();
  auto* hdr = reinterpret_cast<nlmsghdr*>(buf->data());
  nlattr* tb[DCB_ATTR_MAX + 1] = {};
  if (int rc = nlmsg_parse(hdr, sizeof(dcbmsg), tb, DCB_ATTR_MAX, nullptr); rc < 0) {
    return absl::DataLossError(absl::StrCat(ifname, ": malformed dcbnl reply: ", nl_geterror(rc)));
  }
  // The reply names its interface: another one's answer is not this one's.
  if (tb[DCB_ATTR_IFNAME] != nullptr) {
    const std::string named(static_cast<const char*>(nla_data(tb[DCB_ATTR_IFNAME])),
                            strnlen(static_cast<const char*>(nla_data(tb[DCB_ATTR_IFNAME])),
                                    static_cast<size_t>(nla_len(tb[DCB_ATTR_IFNAME]))));
    if (named != ifname) {
      return absl::DataLossError(
          absl::StrCat(ifname, ": the dcbnl reply is for another interface (", named, ")"));
    }
  }
  if (tb[DCB_ATTR_IEEE]) ReadIeee(tb[DCB_ATTR_IEEE], s);
  if (tb[DCB_ATTR_DCBX] && nla_len(tb[DCB_ATTR_DCBX]) >= 1) s->dcbx = nla_get_u8(tb[DCB_ATTR_DCBX]);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<DcbState> ParseDcbReplies(const std::string& ifname, const std::string& ieee_reply,
                                         const std::string& dcbx_reply) {
  DcbState s;
  if (absl::Status st = ReadReply(ifname, ieee_reply, &s); !st.ok()) return st;
  if (!dcbx_reply.empty()) {
    // A driver with IEEE DCB but no DCBX engine answers GDCBX with an error:
    // the mode is then unknown, the rest stands.
    (void)ReadReply(ifname, dcbx_reply, &s);
  }
  return s;
}

absl::StatusOr<std::string> QueryDcb(const std::string& ifname, uint8_t cmd) {
  std::unique_ptr<nl_msg, void (*)(nl_msg*)> msg(nlmsg_alloc_simple(RTM_GETDCB, NLM_F_REQUEST),
                                                 nlmsg_free);
  dcbmsg d{};
  d.dcb_family = AF_UNSPEC;
  d.cmd = cmd;
  if (!msg || nlmsg_append(msg.get(), &d, sizeof(d), NLMSG_ALIGNTO) < 0 ||
      nla_put_string(msg.get(), DCB_ATTR_IFNAME, ifname.c_str()) < 0) {
    return absl::ResourceExhaustedError("dcbnl request");
  }
  return NetlinkRequest(NETLINK_ROUTE, msg.get(), absl::StrCat(ifname, ": dcbnl"), 5, 8);
}

absl::StatusOr<DcbState> ReadDcb(const std::string& ifname) {
  absl::StatusOr<std::string> ieee = QueryDcb(ifname, DCB_CMD_IEEE_GET);
  if (!ieee.ok()) return ieee.status();
  absl::StatusOr<std::string> dcbx = QueryDcb(ifname, DCB_CMD_GDCBX);
  return ParseDcbReplies(ifname, *ieee, dcbx.ok() ? *dcbx : "");
}

std::string DcbxModeName(uint8_t dcbx) {
  std::vector<std::string> parts;
  if (dcbx & DCB_CAP_DCBX_HOST) parts.push_back("host (OS controlled)");
  if (dcbx & DCB_CAP_DCBX_LLD_MANAGED) parts.push_back("firmware (LLD managed)");
  if (dcbx & DCB_CAP_DCBX_VER_CEE) parts.push_back("CEE");
  if (dcbx & DCB_CAP_DCBX_VER_IEEE) parts.push_back("IEEE");
  if (dcbx & DCB_CAP_DCBX_STATIC) parts.push_back("static");
  return parts.empty() ? "none" : absl::StrJoin(parts, ", ");
}

}  // namespace nodeprobe::platform
